"""Messages of lesson 05b (DDP in depth: DataParallel measured, buckets and overlap, no_sync, the cost model)."""

MESSAGES = {
    # --- DataParallel vs DDP, phase by phase
    "lesson05b.col_phase": {"bn": "পর্ব", "en": "phase"},
    "lesson05b.col_where": {"bn": "কে করে", "en": "who does it"},
    "lesson05b.where_dev0": {"bn": "শুধু ডিভাইস 0 / মূল থ্রেড", "en": "device 0 / the main thread alone"},
    "lesson05b.where_threads": {"bn": "সব থ্রেড একসাথে (এক প্রসেস)", "en": "N threads at once (one process)"},
    "lesson05b.where_each": {"bn": "প্রতিটি প্রসেস নিজে", "en": "every process on its own"},
    "lesson05b.dp_name": {"bn": "DataParallel", "en": "DataParallel"},
    "lesson05b.phase_scatter": {"bn": "scatter (batch ভাগ)", "en": "scatter (split the batch)"},
    "lesson05b.phase_replicate": {"bn": "রেপ্লিকা বানানো (মডেল কপি)", "en": "replicate (copy the model)"},
    "lesson05b.phase_gather_loss": {"bn": "gather + loss (ডিভাইস 0)", "en": "gather + loss (device 0)"},
    "lesson05b.phase_reduce_grads": {"bn": "গ্রেডিয়েন্ট যোগ (ডিভাইস 0)", "en": "reduce gradients (device 0)"},
    "lesson05b.phase_backward_allreduce": {"bn": "ব্যাকওয়ার্ড + অল-রিডিউস", "en": "backward + all-reduce"},
    "lesson05b.bar_single": {"bn": "1টি ডিভাইস\n(পুরো batch)", "en": "1 device\n(whole batch)"},
    "lesson05b.bar_dp": {"bn": "DataParallel\n({n}টি থ্রেড)", "en": "DataParallel\n({n} threads)"},
    "lesson05b.bar_ddp_rank": {"bn": "DDP\nর‍্যাঙ্ক {r}", "en": "DDP\nrank {r}"},
    "lesson05b.phases_title": {"bn": "এক ধাপ, পর্ব অনুযায়ী ({kind})", "en": "one step, phase by phase ({kind})"},
    "lesson05b.kind_threads": {"bn": "DataParallel: থ্রেড দিয়ে পুনর্লিখিত, CPU", "en": "DataParallel: re-implemented with threads, CPU"},
    "lesson05b.kind_torch": {"bn": "আসল nn.DataParallel, GPU", "en": "the real nn.DataParallel, GPUs"},
    "lesson05b.v_ddp_faster": {
        "bn": "এই মাপে DDP ({n}টি প্রসেস) এক ধাপে {ddp_ms:.1f} ms, DataParallel ({n}টি থ্রেড) {dp_ms:.1f} ms: DDP {ratio:.2f}× দ্রুত। "
              "DataParallel-এর ধাপের {share:.0%} গেছে এমন পর্বে যা শুধু ডিভাইস 0 / মূল থ্রেড করে (scatter, replicate, gather, গ্রেডিয়েন্ট যোগ, অপটিমাইজার)।",
        "en": "Measured here: DDP ({n} processes) takes {ddp_ms:.1f} ms per step, DataParallel ({n} threads) {dp_ms:.1f} ms: DDP is {ratio:.2f}× faster. "
              "{share:.0%} of DataParallel's step went to phases only device 0 / the main thread does (scatter, replicate, gather, reducing gradients, optimizer).",
    },
    "lesson05b.v_dp_faster": {
        "bn": "এই মাপে DataParallel ({n}টি থ্রেড) এক ধাপে {dp_ms:.1f} ms, DDP ({n}টি প্রসেস) {ddp_ms:.1f} ms: এবার DataParallel এগিয়ে ({ratio:.2f})। "
              "একটি DDP প্রসেস একা থাকলে নিজের ভাগের গণনা করে {piece_ms:.1f} ms-এ, অথচ তার ধাপ লাগল {ddp_ms:.1f} ms: বাকিটা অল-রিডিউস আর অপেক্ষা — অন্য প্রসেসের জন্য, "
              "বা {cores}টি কোরের ব্যস্ত মেশিনে একটি কোরের জন্য (অংশ 3-এর মডেল দুটো আলাদা করে)। তবুও DataParallel-এর ধাপের {share:.0%} শুধু ডিভাইস 0-এর পর্বে — ডিভাইস বাড়ালে এটাই আগে আটকায়।",
        "en": "Measured here: DataParallel ({n} threads) takes {dp_ms:.1f} ms per step, DDP ({n} processes) {ddp_ms:.1f} ms: DataParallel is ahead this time ({ratio:.2f}). "
              "Alone, one DDP process computes its share in {piece_ms:.1f} ms, yet its step took {ddp_ms:.1f} ms: the rest is the all-reduce and waiting — for the other process, "
              "or for a core on this busy {cores}-core machine (section 3's model tells the two apart). Still, {share:.0%} of DataParallel's step is in device-0-only phases — with more devices that is what stalls first.",
    },
    "lesson05b.v_dp_faster_no_rest": {
        "bn": "এই মাপে DataParallel ({n}টি থ্রেড) এক ধাপে {dp_ms:.1f} ms, DDP ({n}টি প্রসেস) {ddp_ms:.1f} ms: এবার DataParallel এগিয়ে ({ratio:.2f})। "
              "একটি DDP প্রসেস একা নিজের ভাগের গণনায় নিল {piece_ms:.1f} ms — অল-রিডিউসসহ তার পুরো ধাপের ({ddp_ms:.1f} ms) চেয়ে কম নয়: এখানে অল-রিডিউসের আলাদা খরচ মাপে ধরা পড়েনি "
              "(ব্যাকওয়ার্ডের আড়ালে চলেছে, বাকি ফারাকটা মাপের ওঠানামা)। তবুও DataParallel-এর ধাপের {share:.0%} শুধু ডিভাইস 0-এর পর্বে — ডিভাইস বাড়ালে এটাই আগে আটকায়।",
        "en": "Measured here: DataParallel ({n} threads) takes {dp_ms:.1f} ms per step, DDP ({n} processes) {ddp_ms:.1f} ms: DataParallel is ahead this time ({ratio:.2f}). "
              "One DDP process alone took {piece_ms:.1f} ms to compute its share — no less than its whole step with the all-reduce ({ddp_ms:.1f} ms): here the all-reduce cost nothing measurable "
              "(it ran behind backward; the rest of the gap is run-to-run noise). Still, {share:.0%} of DataParallel's step is in device-0-only phases — with more devices that is what stalls first.",
    },
    "lesson05b.v_threads_overlap": {
        "bn": "{n}টি থ্রেড রেপ্লিকাগুলোর ফরওয়ার্ড + ব্যাকওয়ার্ড চালিয়েছে একটি থ্রেডে পর পর চালানোর তুলনায় {phrase} ({cores}টি কোরে আদর্শ প্রায় {ideal} গুণ দ্রুত): "
              "বড় গুণগুলো C++-এ GIL ছেড়ে চলে, তাই থ্রেডগুলো সত্যিই একসাথে চলেছে।",
        "en": "The {n} threads ran the replicas' forward + backward {phrase} compared with one thread doing them one after another (ideal about {ideal}× faster on {cores} cores): "
              "the big matmuls run in C++ with the GIL released, so the threads really ran together.",
    },
    "lesson05b.v_threads_gil": {
        "bn": "{n}টি থ্রেড রেপ্লিকাগুলোর ফরওয়ার্ড + ব্যাকওয়ার্ড চালিয়েছে একটি থ্রেডে পর পর চালানোর তুলনায় {phrase} ({cores}টি কোরে আদর্শ প্রায় {ideal} গুণ দ্রুত): "
              "প্রতিটি লেয়ারের Python অংশ একটিমাত্র GIL-এর জন্য পালা করে চলে, আর ছোট গুণে সেটাই সময়ের বড় ভাগ।",
        "en": "The {n} threads ran the replicas' forward + backward {phrase} compared with one thread doing them one after another (ideal about {ideal}× faster on {cores} cores): "
              "every layer's Python part takes turns under the one GIL, and with small matmuls that is a large share of the time.",
    },
    "lesson05b.v_threads_slower": {
        "bn": "{n}টি থ্রেড রেপ্লিকাগুলোর ফরওয়ার্ড + ব্যাকওয়ার্ড একসাথে চালাতে গিয়ে একটি থ্রেডে পর পর চালানোর চেয়েও {slower:.1f} গুণ বেশি সময় নিয়েছে: "
              "প্রতি ধাপে নতুন থ্রেড চালু করা আর একটিমাত্র GIL হাতবদলের খরচ এই ছোট গুণগুলোর চেয়ে বড়।",
        "en": "Running the replicas' forward + backward in {n} threads at once took {slower:.1f}× longer than one thread doing them one after another: "
              "starting new threads every step and handing the one GIL back and forth cost more than these small matmuls.",
    },
    "lesson05b.v_noisy": {
        "bn": "⚠️ {what}: এই মাপ গোলমেলে ছিল (মেশিনে অন্য কাজ চলছিল, কোরের চেয়ে বেশি প্রসেস, বা পুনরাবৃত্তিগুলো মেলেনি) — তাই এখান থেকে কোনো কারণ বলা হলো না। অন্য কাজ বন্ধ করে সেলটি আবার চালাও।",
        "en": "⚠️ {what}: this measurement was noisy (other work was running, more processes than cores, or the repeats disagree) — so no cause is drawn from it. Stop other work and run the cell again.",
    },
    "lesson05b.v_rerun": {
        "bn": "একবার আবার মাপো, শান্ত অবস্থায়: অন্য প্রোগ্রাম (ব্রাউজারের ভিডিও, আরেকটি নোটবুক) বন্ধ করে উপরের মাপার সেলটি আবার চালাও — দ্বিতীয়বার সে আগের ফল না নিয়ে নতুন করে মাপে, প্রতিটি র‍্যাঙ্ক 1টি থ্রেডে, আর শুরুর আগে কোর খালি হওয়ার জন্য কয়েক সেকেন্ড অপেক্ষা করে (তখনও খালি না হলে মাপে না, কেন তা বলে)।",
        "en": "Measure once more, quietly: close other programs (a browser video, another notebook) and run the measuring cell above again — the second time it measures anew instead of reusing the result, one thread per process, and waits a few seconds for free cores before it starts (if they stay taken, it measures nothing and says why).",
    },
    "lesson05b.quiet_mark": {"bn": "(শান্ত মাপ থেকে)", "en": "(from a quiet run)"},
    "lesson05b.v_no_sync_busy": {
        "bn": "✓ ব্যস্ত মেশিনে পালা করে মাপা (অন্য কাজ গড়ে {busy_cores:.1f}টি কোর নিয়েছিল; {rounds}টি রাউন্ডের প্রতিটিতে দুইভাবেই এক ধাপ, রাউন্ডের অনুপাতগুলোর ফারাক {round_spread:.0%}): "
              "{k}টি মাইক্রো-ব্যাচ জমিয়ে no_sync() অল-রিডিউস {every_allreduces:.0f}টি থেকে {no_sync_allreduces:.0f}টিতে নামিয়েছে, আর একই রাউন্ডে no_sync()-এর ধাপ ÷ প্রতিবার অল-রিডিউসের ধাপ = {ratio:.2f} (মধ্যমা)। "
              "শুধু এই অনুপাতটি পড়ো: মিলিসেকেন্ডগুলো ({every_ms:.1f} বনাম {no_sync_ms:.1f}) অন্য কাজের ভারে বদলেছে।",
        "en": "✓ Measured in interleaved rounds on a busy machine (other work took {busy_cores:.1f} cores on average; each of {rounds} rounds timed one step both ways, the rounds' ratios {round_spread:.0%} apart): "
              "accumulating {k} micro-batches, no_sync() cut the all-reduces from {every_allreduces:.0f} to {no_sync_allreduces:.0f}, and within a round no_sync()'s step ÷ the every-backward step = {ratio:.2f} (median). "
              "Read only this ratio: the milliseconds ({every_ms:.1f} vs {no_sync_ms:.1f}) moved with the other load.",
    },
    "lesson05b.busy_cap_step": {"bn": "bucket_cap_mb={cap:g}-এ ({n}টি বাকেট) DDP-র ধাপ", "en": "DDP's step with bucket_cap_mb={cap:g} ({n} buckets)"},
    "lesson05b.busy_ours_step": {"bn": "bucket_cap_mb={cap:g}-এ ({n}টি বাকেট) আমাদের হাতে লেখা বাকেটের ধাপ", "en": "our hand-written buckets' step with bucket_cap_mb={cap:g} ({n} buckets)"},
    "lesson05b.what_overlap": {"bn": "অল-রিডিউসের কত ভাগ ব্যাকওয়ার্ডের আড়ালে লুকাল (সময়রেখা)", "en": "how much of the all-reduce hid behind backward (the timeline)"},
    "lesson05b.what_compare": {"bn": "DataParallel বনাম DDP", "en": "DataParallel vs DDP"},
    "lesson05b.what_sweep": {"bn": "বাকেটের আকার বনাম ধাপের সময়", "en": "bucket size vs step time"},
    "lesson05b.what_accumulation": {"bn": "no_sync() সহ আর ছাড়া ধাপের সময়", "en": "step time with and without no_sync()"},
    "lesson05b.what_prediction": {"bn": "DDP-র এক ধাপ: মডেল বনাম মাপ", "en": "one DDP step: model vs measurement"},
    "lesson05b.what_held_out": {"bn": "ফিটে না-রাখা আকারে মডেল বনাম মাপ ({p}টি প্রসেস)", "en": "the held-out size: model vs measurement ({p} processes)"},
    "lesson05b.what_comm": {"bn": "gloo, Python রিং আর সার্ভারের মাপ", "en": "gloo, the Python ring and the server"},
    "lesson05b.what_alpha": {"bn": "প্রসেস-সংখ্যা অনুযায়ী α", "en": "α per process count"},
    "lesson05b.what_ps": {"bn": "প্যারামিটার সার্ভার: মডেল বনাম মাপ", "en": "parameter server: model vs measurement"},
    "lesson05b.v_bucket_count": {
        "bn": "কেন {k}টি মাইক্রো-ব্যাচে {every:.0f}টি অল-রিডিউস: DDP প্রতিটি backward-এ প্রতিটি বাকেট আলাদা অল-রিডিউস করে। এই মডেলে এক backward-এ বাকেট {buckets:.0f}টি "
              "(no_sync()-এর শেষ backward-এ গোনা), তাই no_sync() ছাড়া {buckets:.0f} × {k} = {product:.0f}টি; no_sync() দিয়ে শুধু শেষ backward-এর {no_sync:.0f}টি।",
        "en": "Why {k} micro-batches made {every:.0f} all-reduces: DDP all-reduces every bucket in every backward. This model has {buckets:.0f} buckets per backward "
              "(counted in no_sync()'s last backward), so without no_sync() {buckets:.0f} × {k} = {product:.0f}; with no_sync() only the last backward's {no_sync:.0f}.",
    },
    "lesson05b.v_bucket_count_other": {
        "bn": "{k}টি মাইক্রো-ব্যাচে no_sync() ছাড়া {every:.0f}টি অল-রিডিউস, no_sync() দিয়ে {no_sync:.0f}টি: বাকেট × মাইক্রো-ব্যাচ ({buckets:.1f} × {k} = {product:.1f}) গোনার সাথে মেলে না — "
              "কোনো backward-এ বাকেটের সংখ্যা আলাদা ছিল (DDP প্রথম ধাপের পরে বাকেট নতুন করে সাজায়)।",
        "en": "{k} micro-batches: {every:.0f} all-reduces without no_sync(), {no_sync:.0f} with it: this does not equal buckets × micro-batches ({buckets:.1f} × {k} = {product:.1f}) — "
              "some backward had another number of buckets (DDP rebuilds its buckets after the first step).",
    },
    "lesson05b.v_alpha_jumps": {
        "bn": "এই টেবিলে α: {listing}। কোরের চেয়ে বেশি প্রসেসে (p={top_p}, কোর {cores}টি) α {top_us:.0f} µs — p={base_p}-এর {base_us:.0f} µs-এর {ratio:.1f} গুণ: "
              "প্রসেসগুলো পালা করে চলে, প্রতিটি বার্তা ঘুমন্ত প্রসেসের জেগে ওঠার অপেক্ষা করে।",
        "en": "α in this table: {listing}. With more processes than cores (p={top_p}, {cores} cores) α is {top_us:.0f} µs — {ratio:.1f}× the {base_us:.0f} µs at p={base_p}: "
              "the processes take turns, and every message waits for a sleeping process to wake up.",
    },
    "lesson05b.v_alpha_flat": {
        "bn": "এই টেবিলে α: {listing}। কোরের চেয়ে বেশি প্রসেসেও (p={top_p}, কোর {cores}টি) α {top_us:.0f} µs, p={base_p}-এর {base_us:.0f} µs-এর {ratio:.1f} গুণ — এই রানে α লাফ দেয়নি; "
              "কোর ভাগাভাগির খরচ এখানে α-তে বড় হয়ে দেখা দেয়নি।",
        "en": "α in this table: {listing}. Even with more processes than cores (p={top_p}, {cores} cores) α is {top_us:.0f} µs, {ratio:.1f}× the {base_us:.0f} µs at p={base_p} — α did not jump in this run; "
              "sharing the cores did not show up as a large α here.",
    },
    "lesson05b.v_alpha_one_side": {
        "bn": "এই টেবিলে α: {listing} (কোর {cores}টি)। সব প্রসেস-সংখ্যা কোরের একই দিকে, তাই কোর ভাগাভাগিতে α কতটা বাড়ে তা এই টেবিল থেকে বলা যায় না।",
        "en": "α in this table: {listing} ({cores} cores). Every process count is on the same side of the cores, so this table cannot say how much sharing cores raises α.",
    },
    "lesson05b.v_ps_close": {
        "bn": "{p}টি প্রসেসে {kb:.0f} KB, একটি কেন্দ্রীয় সার্ভার: মডেল {pred_ms:.2f} ms (লেটেন্সি {alpha_ms:.2f} + বাইট {bytes_ms:.2f}), মাপা {meas_ms:.2f} ms — মিলে গেছে।",
        "en": "{kb:.0f} KB on {p} processes, one central server: model {pred_ms:.2f} ms (latency {alpha_ms:.2f} + bytes {bytes_ms:.2f}), measured {meas_ms:.2f} ms — it matches.",
    },
    "lesson05b.v_ps_bytes_off": {
        "bn": "{p}টি প্রসেসে {kb:.0f} KB, একটি কেন্দ্রীয় সার্ভার: মডেল {pred_ms:.2f} ms, মাপা {meas_ms:.2f} ms ({ratio:.1f} গুণ বেশি অনুমান)। মডেলের {messages}টি পূর্ণ বার্তার বাইটের অংশ "
              "{bytes_ms:.2f} ms (লেটেন্সি মাত্র {alpha_ms:.2f} ms) — গরমিল এই বাইটের অংশে: β মাপা হয়েছিল gloo-র অল-রিডিউস থেকে ({fitted_gbs:.2f} GB/s), "
              "কিন্তু এখানে পুরো টেনসরের একটি send/recv কার্যত {implied_gbs:.2f} GB/s-এ চলেছে।",
        "en": "{kb:.0f} KB on {p} processes, one central server: model {pred_ms:.2f} ms, measured {meas_ms:.2f} ms (predicted {ratio:.1f}× too much). The bytes part of the model's {messages} full-size messages is "
              "{bytes_ms:.2f} ms (latency only {alpha_ms:.2f} ms) — the gap is in that bytes part: β was fitted from gloo's all-reduce ({fitted_gbs:.2f} GB/s), "
              "but a whole-tensor send/recv here effectively ran at {implied_gbs:.2f} GB/s.",
    },
    "lesson05b.v_ps_alpha_off": {
        "bn": "{p}টি প্রসেসে {kb:.0f} KB, একটি কেন্দ্রীয় সার্ভার: মডেল {pred_ms:.2f} ms, মাপা {meas_ms:.2f} ms। মডেলের লেটেন্সির অংশ ({messages} × α = {alpha_ms:.2f} ms) একাই মাপের চেয়ে বড় — "
              "গরমিল α-তে: অল-রিডিউস থেকে ফিট করা α একটি সরল send/recv-এর শুরুর খরচের চেয়ে বেশি।",
        "en": "{kb:.0f} KB on {p} processes, one central server: model {pred_ms:.2f} ms, measured {meas_ms:.2f} ms. The model's latency part ({messages} × α = {alpha_ms:.2f} ms) alone exceeds the measurement — "
              "the gap is in α: the α fitted from all-reduces is more than a plain send/recv's start cost.",
    },
    "lesson05b.v_ps_under": {
        "bn": "{p}টি প্রসেসে {kb:.0f} KB, একটি কেন্দ্রীয় সার্ভার: মডেল {pred_ms:.2f} ms (লেটেন্সি {alpha_ms:.2f} + বাইট {bytes_ms:.2f}), মাপা {meas_ms:.2f} ms — {extra_ms:.2f} ms বেশি: "
              "মডেলে নেই সার্ভারের যোগ করার কাজ আর প্রতিটি বার্তার Python খরচ।",
        "en": "{kb:.0f} KB on {p} processes, one central server: model {pred_ms:.2f} ms (latency {alpha_ms:.2f} + bytes {bytes_ms:.2f}), measured {meas_ms:.2f} ms — {extra_ms:.2f} ms more: "
              "the model has no term for the server's additions or each message's Python cost.",
    },
    "lesson05b.pieces_col_piece": {"bn": "অংশ", "en": "piece"},
    "lesson05b.pieces_col_result": {"bn": "CPU টেনসরে ফল", "en": "result on CPU tensors"},
    "lesson05b.pieces_works": {"bn": "চলে", "en": "works"},
    "lesson05b.bytes_col_what": {"bn": "কী", "en": "what"},
    "lesson05b.bytes_col_mb": {"bn": "প্রতি ধাপে (MB)", "en": "per step (MB)"},
    "lesson05b.bytes_ddp_allreduce": {"bn": "DDP: প্রতিটি প্রসেস অল-রিডিউস করে", "en": "DDP: each process all-reduces"},
    "lesson05b.bytes_ddp_ring": {"bn": "DDP: রিং-এ প্রতিটি প্রসেস পাঠায়", "en": "DDP: each process sends in a ring"},
    "lesson05b.bytes_dp": {"bn": "DataParallel, ডিভাইস 0 দিয়ে: {phase}", "en": "DataParallel, through device 0: {phase}"},
    "lesson05b.mem_col_who": {"bn": "কে", "en": "who"},
    "lesson05b.mem_col_params": {"bn": "প্যারামিটার (MB)", "en": "parameters (MB)"},
    "lesson05b.mem_col_grads": {"bn": "গ্রেডিয়েন্ট (MB)", "en": "gradients (MB)"},
    "lesson05b.mem_col_optim": {"bn": "অপটিমাইজার (MB)", "en": "optimizer (MB)"},
    "lesson05b.mem_dp_device": {"bn": "DataParallel, ডিভাইস {i}", "en": "DataParallel, device {i}"},
    "lesson05b.mem_ddp_rank": {"bn": "DDP, র‍্যাঙ্ক {i}", "en": "DDP, rank {i}"},
    "lesson05b.v_oversubscribed": {
        "bn": "সতর্কতা: {n}টি প্রসেস/থ্রেড কিন্তু কোর {cores}টি — তারা কোর ভাগাভাগি করছে, তাই দুই পদ্ধতিই এখানে ধীর।",
        "en": "Note: {n} processes/threads but only {cores} cores — they share cores, so both ways are slowed down here.",
    },
    "lesson05b.no_gpu_results": {
        "bn": "reference/-এ এখনও কোনো GPU-র ফল নেই: বহু-GPU মেশিনে মাপা DataParallel বনাম DDP এখানে দেখানোর কিছু নেই — উপরের সব সংখ্যা এই মেশিনেই মাপা।",
        "en": "No GPU results yet in reference/: there is no DataParallel-vs-DDP measurement from a multi-GPU machine to show — every number above was measured on this machine.",
    },
    "lesson05b.gpu_results": {
        "bn": "reference/-এ GPU-তে মাপা ফল আছে: {runs}।",
        "en": "reference/ holds results measured on GPUs: {runs}.",
    },
    # --- buckets, overlap, no_sync
    "lesson05b.n_buckets": {"bn": "{n} বাকেট", "en": "{n} buckets"},
    "lesson05b.bucket_mb": {"bn": "bucket_cap_mb (MB, লগ স্কেল)", "en": "bucket_cap_mb (MB, log scale)"},
    "lesson05b.sweep_title": {"bn": "বাকেটের আকার বনাম ধাপের সময়", "en": "bucket size vs step time"},
    "lesson05b.tl_compute": {"bn": "গ্রেডিয়েন্ট গণনা", "en": "computing gradients"},
    "lesson05b.tl_allreduce": {"bn": "বাকেটের অল-রিডিউস (প্রস্তুত → শেষ)", "en": "a bucket's all-reduce (ready → done)"},
    "lesson05b.tl_bucket": {"bn": "বাকেট {i}", "en": "bucket {i}"},
    "lesson05b.tl_x": {"bn": "ব্যাকওয়ার্ড শুরুর পর সময় (ms)", "en": "time since backward started (ms)"},
    "lesson05b.tl_title": {"bn": "এক ধাপ, bucket_cap_mb={cap:g}: {hidden:.0%} যোগাযোগ গণনার আড়ালে",
                           "en": "one step, bucket_cap_mb={cap:g}: {hidden:.0%} of communication hidden"},
    "lesson05b.v_buckets_small": {
        "bn": "ছোট বাকেট এখানে জিতেছে: bucket_cap_mb={small_mb:g} ({small_n}টি বাকেট) এক ধাপ {small_ms:.1f} ms, {large_mb:g} MB-তে ({large_n}টি বাকেট) {large_ms:.1f} ms — আগে পাঠানো শুরু করার লাভ বাড়তি বার্তার লেটেন্সির চেয়ে বেশি।",
        "en": "Small buckets win here: bucket_cap_mb={small_mb:g} ({small_n} buckets) takes {small_ms:.1f} ms per step, {large_mb:g} MB ({large_n} buckets) {large_ms:.1f} ms — starting to send early gains more than the extra messages' latency costs.",
    },
    "lesson05b.v_buckets_large": {
        "bn": "বড় বাকেট এখানে জিতেছে: {large_mb:g} MB-তে ({large_n}টি বাকেট) এক ধাপ {large_ms:.1f} ms, bucket_cap_mb={small_mb:g}-এ ({small_n}টি বাকেট) {small_ms:.1f} ms — প্রতিটি বাড়তি বার্তার লেটেন্সি আগে শুরু করার লাভের চেয়ে বেশি খেয়েছে।",
        "en": "Large buckets win here: {large_mb:g} MB ({large_n} buckets) takes {large_ms:.1f} ms per step, bucket_cap_mb={small_mb:g} ({small_n} buckets) {small_ms:.1f} ms — each extra message's latency cost more than starting early gained.",
    },
    "lesson05b.v_overlap": {
        "bn": "bucket_cap_mb={cap:g}-এ ({n}টি বাকেট) অল-রিডিউসের সময়ের {hidden:.0%} কেটেছে ব্যাকওয়ার্ড যখন আগের লেয়ারের গ্রেডিয়েন্ট গুনছিল — এটুকু যোগাযোগ গণনার আড়ালে লুকিয়েছে।",
        "en": "With bucket_cap_mb={cap:g} ({n} buckets) {hidden:.0%} of the all-reduce time passed while backward was still computing earlier layers' gradients — that much communication hid behind compute.",
    },
    "lesson05b.v_ours_vs_ddp": {
        "bn": "bucket_cap_mb={cap:g}-এ আমাদের হাতে লেখা বাকেটের অল-রিডিউসে এক ধাপ (ফরওয়ার্ড + ব্যাকওয়ার্ড + অল-রিডিউস) {ours_ms:.1f} ms, PyTorch-এর DDP-তে ({n}টি বাকেট) {ddp_ms:.1f} ms; DDP একই কাজ করে C++-এ (তার Reducer)।",
        "en": "With bucket_cap_mb={cap:g} our hand-written bucketed all-reduce took {ours_ms:.1f} ms per step (forward + backward + all-reduce), PyTorch's DDP ({n} buckets) {ddp_ms:.1f} ms; DDP does the same work in C++ (its Reducer).",
    },
    "lesson05b.v_no_sync_saves": {
        "bn": "{k}টি মাইক্রো-ব্যাচ জমিয়ে: no_sync() ছাড়া প্রতি অপটিমাইজার ধাপে {every_allreduces:.0f}টি অল-রিডিউস ({every_mb:.2f} MB), {every_ms:.1f} ms; "
              "no_sync() দিয়ে {no_sync_allreduces:.0f}টি ({no_sync_mb:.2f} MB), {no_sync_ms:.1f} ms — {saving:.0%} সময় বাঁচল।",
        "en": "Accumulating {k} micro-batches: without no_sync() each optimizer step did {every_allreduces:.0f} all-reduces ({every_mb:.2f} MB), {every_ms:.1f} ms; "
              "with no_sync() {no_sync_allreduces:.0f} ({no_sync_mb:.2f} MB), {no_sync_ms:.1f} ms — {saving:.0%} of the time saved.",
    },
    "lesson05b.v_no_sync_none": {
        "bn": "{k}টি মাইক্রো-ব্যাচ জমিয়ে: no_sync() অল-রিডিউস {every_allreduces:.0f}টি থেকে {no_sync_allreduces:.0f}টিতে নামিয়েছে, কিন্তু সময় প্রায় একই "
              "({every_ms:.1f} বনাম {no_sync_ms:.1f} ms): এখানে এক অল-রিডিউস গণনার তুলনায় সস্তা (বা মেশিন ব্যস্ত ছিল)।",
        "en": "Accumulating {k} micro-batches: no_sync() cut the all-reduces from {every_allreduces:.0f} to {no_sync_allreduces:.0f}, but the time stayed about the same "
              "({every_ms:.1f} vs {no_sync_ms:.1f} ms): one all-reduce is cheap next to the compute here (or the machine was busy).",
    },
    # --- the cost model
    "lesson05b.fit_measured": {"bn": "মাপা, {p}টি প্রসেস", "en": "measured, {p} processes"},
    "lesson05b.fit_line": {"bn": "ফিট, p={p}: α={alpha:.0f} µs, 1/β={gbs:.2f} GB/s", "en": "fit, p={p}: α={alpha:.0f} µs, 1/β={gbs:.2f} GB/s"},
    "lesson05b.fit_held_out": {"bn": "ফিটে না-রাখা মাপ, p={p}", "en": "held-out measurement, p={p}"},
    "lesson05b.fit_x": {"bn": "বার্তার আকার (বাইট)", "en": "message size (bytes)"},
    "lesson05b.fit_y": {"bn": "একটি অল-রিডিউস (ms)", "en": "one all-reduce (ms)"},
    "lesson05b.fit_title": {"bn": "অল-রিডিউস: মাপা বনাম α–β মডেল", "en": "all-reduce: measured vs the α–β model"},
    "lesson05b.v_held_out_ok": {
        "bn": "{p}টি প্রসেসে ফিট: α = {alpha_us:.0f} µs, ব্যান্ডউইথ 1/β = {gbs:.2f} GB/s। ফিটে না-রাখা {kb:.0f} KB-এর জন্য মডেল বলেছিল {pred_ms:.3f} ms, মাপা {meas_ms:.3f} ms ({error:.0%} ফারাক)।",
        "en": "Fit on {p} processes: α = {alpha_us:.0f} µs, bandwidth 1/β = {gbs:.2f} GB/s. For the held-out {kb:.0f} KB the model said {pred_ms:.3f} ms, measured {meas_ms:.3f} ms ({error:.0%} off).",
    },
    "lesson05b.v_held_out_off": {
        "bn": "{p}টি প্রসেসে ফিট: α = {alpha_us:.0f} µs, 1/β = {gbs:.2f} GB/s। কিন্তু ফিটে না-রাখা {kb:.0f} KB-এ মডেল {pred_ms:.3f} ms বলেছিল, মাপা {meas_ms:.3f} ms — {error:.0%} ফারাক: "
              "এই আকারে gloo হয়তো অন্য অ্যালগরিদম নেয়, বা মেশিন ব্যস্ত ছিল; একটি সরলরেখা এখানে যথেষ্ট নয়।",
        "en": "Fit on {p} processes: α = {alpha_us:.0f} µs, 1/β = {gbs:.2f} GB/s. But for the held-out {kb:.0f} KB the model said {pred_ms:.3f} ms and we measured {meas_ms:.3f} ms — {error:.0%} off: "
              "gloo may switch algorithms at this size, or the machine was busy; one straight line is not enough here.",
    },
    "lesson05b.v_predict_close": {
        "bn": "মডেলের অনুমান: DDP-র এক ধাপ = গণনা {compute_ms:.1f} ms + অল-রিডিউস {comm_ms:.1f} ms = {pred_ms:.1f} ms; মাপা {meas_ms:.1f} ms ({error:.0%} ফারাক) — মিলে গেছে।",
        "en": "The model's prediction: one DDP step = compute {compute_ms:.1f} ms + all-reduce {comm_ms:.1f} ms = {pred_ms:.1f} ms; measured {meas_ms:.1f} ms ({error:.0%} off) — it matches.",
    },
    "lesson05b.v_predict_below_compute": {
        "bn": "মডেলের অনুমান: গণনা {compute_ms:.1f} ms + অল-রিডিউস {comm_ms:.1f} ms = {pred_ms:.1f} ms; মাপা {meas_ms:.1f} ms — একা মাপা গণনার চেয়েও কম। "
              "অল-রিডিউস ব্যাকওয়ার্ডের আড়ালে চললে ধাপ বড়জোর গণনার সমান হতে পারে, তার নিচে নয়: তাই দুটি আলাদা রানের মাপ (একা গণনা, DDP-র ধাপ) "
              "এখানে {gap:.0%} আলাদা — এটা এই মেশিনের মাপের ওঠানামা। আবার চালিয়ে দেখো।",
        "en": "The model's prediction: compute {compute_ms:.1f} ms + all-reduce {comm_ms:.1f} ms = {pred_ms:.1f} ms; measured {meas_ms:.1f} ms — less than the compute measured alone. "
              "Overlapping the all-reduce with backward can bring a step down to its compute, never below it: so the two separate runs (compute alone, the DDP step) "
              "differ by {gap:.0%} here — this machine's run-to-run noise. Run it again.",
    },
    "lesson05b.v_predict_over": {
        "bn": "মডেলের অনুমান: গণনা {compute_ms:.1f} ms + অল-রিডিউস {comm_ms:.1f} ms = {pred_ms:.1f} ms; মাপা মাত্র {meas_ms:.1f} ms ({error:.0%} কম): "
              "DDP অল-রিডিউসের কিছুটা ব্যাকওয়ার্ডের আড়ালে চালিয়েছে, যা এই সরল যোগফল ধরে না।",
        "en": "The model's prediction: compute {compute_ms:.1f} ms + all-reduce {comm_ms:.1f} ms = {pred_ms:.1f} ms; measured only {meas_ms:.1f} ms ({error:.0%} less): "
              "DDP hid part of the all-reduce behind backward, which this plain sum does not count.",
    },
    "lesson05b.v_predict_under": {
        "bn": "মডেলের অনুমান: গণনা {compute_ms:.1f} ms + অল-রিডিউস {comm_ms:.1f} ms = {pred_ms:.1f} ms; মাপা {meas_ms:.1f} ms ({error:.0%} বেশি): "
              "প্রসেসগুলো কোর আর মেমরি ভাগাভাগি করে একে অপরকে ধীর করেছে, আর অল-রিডিউস গণনার সাথে CPU ভাগ করেছে — মডেল এগুলো জানে না।",
        "en": "The model's prediction: compute {compute_ms:.1f} ms + all-reduce {comm_ms:.1f} ms = {pred_ms:.1f} ms; measured {meas_ms:.1f} ms ({error:.0%} more): "
              "the processes slowed each other down sharing cores and memory, and the all-reduce shared the CPU with the compute — the model knows none of this.",
    },
    "lesson05b.col_method": {"bn": "পদ্ধতি", "en": "method"},
    "lesson05b.comm_gloo": {"bn": "gloo-র dist.all_reduce", "en": "gloo's dist.all_reduce"},
    "lesson05b.comm_ring": {"bn": "আমাদের Python রিং (পাঠ 05)", "en": "our Python ring (lesson 05)"},
    "lesson05b.comm_ps": {"bn": "একটি কেন্দ্রীয় প্যারামিটার সার্ভার (পাঠ 05)", "en": "one central parameter server (lesson 05)"},
    "lesson05b.v_comm_ring_slower": {
        "bn": "{p}টি প্রসেসে {kb:.0f} KB: gloo-র অল-রিডিউস মাপা {gloo_meas:.3f} ms (মডেল {gloo_pred:.3f}); আমাদের Python রিং মাপা {ring_meas:.3f} ms (মডেল {ring_pred:.3f}) — "
              "বাড়তিটুকু প্রতিটি ধাপের Python খরচ, যা gloo-র α-তে নেই; একটি কেন্দ্রীয় সার্ভার মাপা {ps_meas:.3f} ms (মডেল {ps_pred:.3f})।",
        "en": "{kb:.0f} KB on {p} processes: gloo's all-reduce measured {gloo_meas:.3f} ms (model {gloo_pred:.3f}); our Python ring measured {ring_meas:.3f} ms (model {ring_pred:.3f}) — "
              "the extra is each step's Python cost, which gloo's α does not contain; one central server measured {ps_meas:.3f} ms (model {ps_pred:.3f}).",
    },
    "lesson05b.v_comm_ring_not_slower": {
        "bn": "{p}টি প্রসেসে {kb:.0f} KB: gloo-র অল-রিডিউস মাপা {gloo_meas:.3f} ms (মডেল {gloo_pred:.3f}); আমাদের Python রিং মাপা {ring_meas:.3f} ms (মডেল {ring_pred:.3f}) — "
              "এখানে gloo-র চেয়ে ধীর নয়: একটি বড় টেনসরে দুজনেই একই বাইট পাঠায়, আর Python-এর ধাপ মাত্র 2(p−1)টি; একটি কেন্দ্রীয় সার্ভার মাপা {ps_meas:.3f} ms (মডেল {ps_pred:.3f})।",
        "en": "{kb:.0f} KB on {p} processes: gloo's all-reduce measured {gloo_meas:.3f} ms (model {gloo_pred:.3f}); our Python ring measured {ring_meas:.3f} ms (model {ring_pred:.3f}) — "
              "no slower than gloo here: for one big tensor both send the same bytes, and the Python steps are only 2(p−1); one central server measured {ps_meas:.3f} ms (model {ps_pred:.3f}).",
    },
    "lesson05b.v_zero_under": {
        "bn": "মডেল থেকে সবচেয়ে দূরে {stage}: মাপা {meas_ms:.1f} ms, মডেল (গণনা + গোনা কলগুলোর যোগাযোগ) {pred_ms:.1f} ms — মাপা {ratio:.1f} গুণ। "
              "মডেল শুধু বার্তার সময় গোনে; প্রতিটি কলের Python আর টুকরো-জোড়ার (shard) হিসাবের খরচ, আর কোর ভাগাভাগি তার বাইরে।",
        "en": "Furthest from the model is {stage}: measured {meas_ms:.1f} ms, model (compute + the counted calls' communication) {pred_ms:.1f} ms — {ratio:.1f}× the model. "
              "The model counts only the messages' time; each call's Python and shard bookkeeping, and core sharing, are outside it.",
    },
    "lesson05b.v_zero_over": {
        "bn": "মডেল থেকে সবচেয়ে দূরে {stage}: মাপা {meas_ms:.1f} ms, মডেল {pred_ms:.1f} ms — মাপা মডেলের মাত্র {ratio:.2f} গুণ: যোগাযোগের কিছুটা গণনার সাথে একসাথে চলেছে, যা মডেল ধরে না।",
        "en": "Furthest from the model is {stage}: measured {meas_ms:.1f} ms, model {pred_ms:.1f} ms — only {ratio:.2f}× the model: part of the communication ran alongside compute, which the model does not count.",
    },
    "lesson05b.v_zero_close": {
        "bn": "ZeRO-র সব স্টেজ মডেলের কাছাকাছি: সবচেয়ে দূরে {stage}, মাপা {meas_ms:.1f} ms বনাম মডেল {pred_ms:.1f} ms ({ratio:.2f} গুণ)।",
        "en": "Every ZeRO stage is close to the model: the furthest, {stage}, measured {meas_ms:.1f} ms vs the model's {pred_ms:.1f} ms ({ratio:.2f}×).",
    },
    "lesson05b.strategy_dp": {"bn": "DataParallel (থ্রেড)", "en": "DataParallel (threads)"},
    "lesson05b.strategy_zero3": {"bn": "ZeRO-3 (FSDP)", "en": "ZeRO-3 (FSDP)"},
    "lesson05b.strategy_ps": {"bn": "প্যারামিটার সার্ভার", "en": "parameter server"},
    "lesson05b.prediction_only": {"bn": "(শুধু অনুমান)", "en": "(prediction only)"},
    # --- the panel
    "lesson05b.panel_title": {"bn": "DataParallel বনাম DDP: সময়, প্রতি র‍্যাঙ্কে মেমরি, যোগাযোগ", "en": "DataParallel vs DDP: time, memory per process, communication"},
    "lesson05b.processes": {"bn": "ডিভাইস/প্রসেস", "en": "devices/processes"},
    "lesson05b.bucket_mb_control": {"bn": "বাকেট (MB)", "en": "bucket (MB)"},
    "lesson05b.mem_y": {"bn": "প্যারামিটার + গ্রেডিয়েন্ট + অপটিমাইজার (MB)", "en": "parameters + gradients + optimizer (MB)"},
    "lesson05b.mem_title": {"bn": "প্রতি র‍্যাঙ্কে মেমরি (টেনসর থেকে গোনা)", "en": "memory per process (counted from the tensors)"},
    "lesson05b.col_predicted_ms": {"bn": "মডেলের অনুমান (ms)", "en": "predicted (ms)"},
    "lesson05b.col_mem_mb": {"bn": "সর্বোচ্চ মেমরি/র‍্যাঙ্ক (MB)", "en": "max memory/rank (MB)"},
    "lesson05b.col_moved_mb": {"bn": "প্রতি ধাপে পাঠানো (MB)", "en": "sent per step (MB)"},
    "lesson05b.col_measured_ms": {"bn": "মাপা (ms)", "en": "measured (ms)"},
    # --- exercise checks (fastrain_lib.lessons.l05b_ddp_in_depth.checks)
    "lesson05b.check.mutated": {
        "bn": "তোমার ফাংশন ইনপুটের অভিধান/তালিকা বদলে দিয়েছে। মাপা সংখ্যা শুধু পড়ো, বদলিও না (যেমন pop() বা del ব্যবহার কোরো না)।",
        "en": "Your function changed the input dicts/list. Only read the measured numbers, do not change them (no pop() or del).",
    },
    "lesson05b.check.not_dict": {
        "bn": "একটি অভিধান (dict) ফেরত দাও, কী-গুলো: dp_step_s, ddp_step_s, faster, serial_share। পাওয়া গেল: {got}",
        "en": "Return a dict with the keys dp_step_s, ddp_step_s, faster, serial_share. Got: {got}",
    },
    "lesson05b.check.missing_key": {
        "bn": "ফেরত দেওয়া অভিধানে এই কী নেই: {keys}।",
        "en": "The returned dict lacks these keys: {keys}.",
    },
    "lesson05b.check.not_number": {
        "bn": "'{name}' একটি সংখ্যা (সেকেন্ড বা ভাগ) হওয়া চাই, পাওয়া গেল {got}।",
        "en": "'{name}' must be one number (seconds, or a share), got {got}.",
    },
    "lesson05b.check.dp_wrong": {
        "bn": "dp_step_s ভুল: তুমি দিলে {got:.3f} ms, হওয়া উচিত {want:.3f} ms। DataParallel-এর এক ধাপ = তার সব পর্বের সময়ের যোগফল (পর্বগুলো একটার পর একটা চলে)।",
        "en": "dp_step_s is wrong: you gave {got:.3f} ms, it should be {want:.3f} ms. One DataParallel step = the sum of all its phases (they run one after another).",
    },
    "lesson05b.check.ddp_last": {
        "bn": "DDP-র ধাপ {got:.3f} ms দিয়েছ — এটা শেষ র‍্যাঙ্কের সময়, সবচেয়ে ধীর র‍্যাঙ্কের নয় (চাই {want:.3f} ms)। সবচেয়ে ধীর র‍্যাঙ্ক তালিকার যেকোনো জায়গায় থাকতে পারে: সব র‍্যাঙ্কের মোটের max নাও।",
        "en": "You gave a DDP step of {got:.3f} ms — the last rank's time, not the slowest rank's (expected {want:.3f} ms). The slowest rank can be anywhere in the list: take the max of every rank's total.",
    },
    "lesson05b.check.ring_integer_division": {
        "bn": "p={p}, n={n}: {got:.6f} ms, চাই {want:.6f} ms — 2(p−1)·n // p পূর্ণসংখ্যার ভাগে ভগ্নাংশ বাদ পড়েছে; প্রতি র‍্যাঙ্কের বাইট 2(p−1)/p · n একটি ভগ্নাংশ হতে পারে: / দিয়ে ভাগ করো।",
        "en": "p={p}, n={n}: {got:.6f} ms, expected {want:.6f} ms — 2(p−1)·n // p dropped the fraction in integer division; the bytes per rank 2(p−1)/p · n can be a fraction: divide with /.",
    },
    "lesson05b.check.ddp_mean": {
        "bn": "ddp_step_s-এ তুমি র‍্যাঙ্কগুলোর গড় নিয়েছ ({got:.3f} ms)। কিন্তু অল-রিডিউসে সবাই সবার জন্য অপেক্ষা করে: সবচেয়ে ধীর র‍্যাঙ্কই ধাপের সময় ঠিক করে — প্রতিটি র‍্যাঙ্কের মোট সময়ের সর্বোচ্চটি নাও ({want:.3f} ms)।",
        "en": "For ddp_step_s you averaged the ranks ({got:.3f} ms). But in the all-reduce everyone waits for everyone: the slowest rank sets the step time — take the largest of the ranks' totals ({want:.3f} ms).",
    },
    "lesson05b.check.ddp_sum": {
        "bn": "ddp_step_s-এ তুমি সব র‍্যাঙ্কের সময় যোগ করেছ ({got:.3f} ms)। র‍্যাঙ্কগুলো একসাথে (সমান্তরালে) চলে, একটার পর একটা নয়: সবচেয়ে ধীর র‍্যাঙ্কের মোট সময়ই ধাপের সময় ({want:.3f} ms)।",
        "en": "For ddp_step_s you added up all ranks ({got:.3f} ms). The ranks run at the same time, not one after another: the slowest rank's total is the step time ({want:.3f} ms).",
    },
    "lesson05b.check.ddp_rank0": {
        "bn": "ddp_step_s-এ তুমি শুধু একটি র‍্যাঙ্ক (যেমন র‍্যাঙ্ক 0) দেখেছ ({got:.3f} ms)। সব র‍্যাঙ্কের মোট সময় হিসাব করে সবচেয়ে বড়টি নাও ({want:.3f} ms) — ধীরতম র‍্যাঙ্কের জন্য বাকিরা অপেক্ষা করে।",
        "en": "For ddp_step_s you looked at one rank only (e.g. rank 0) ({got:.3f} ms). Compute every rank's total and take the largest ({want:.3f} ms) — the others wait for the slowest.",
    },
    "lesson05b.check.ddp_phase_max": {
        "bn": "ddp_step_s-এ তুমি প্রতিটি পর্বের সর্বোচ্চ আলাদা করে নিয়ে যোগ করেছ ({got:.3f} ms)। কিন্তু সেই সর্বোচ্চগুলো ভিন্ন ভিন্ন র‍্যাঙ্কের হতে পারে। আগে প্রতিটি র‍্যাঙ্কের মোট সময়, তারপর তাদের সর্বোচ্চ ({want:.3f} ms)।",
        "en": "For ddp_step_s you took each phase's maximum separately and added them ({got:.3f} ms). Those maxima can come from different ranks. First each rank's total, then the largest of those ({want:.3f} ms).",
    },
    "lesson05b.check.ddp_min": {
        "bn": "ddp_step_s-এ তুমি সবচেয়ে দ্রুত র‍্যাঙ্কের সময় নিয়েছ ({got:.3f} ms)। দ্রুত র‍্যাঙ্ক অল-রিডিউসে ধীরটির জন্য বসে থাকে: সর্বোচ্চটি নাও ({want:.3f} ms)।",
        "en": "For ddp_step_s you took the fastest rank ({got:.3f} ms). The fast rank sits in the all-reduce waiting for the slow one: take the largest ({want:.3f} ms).",
    },
    "lesson05b.check.ddp_wrong": {
        "bn": "ddp_step_s ভুল: তুমি দিলে {got:.3f} ms, হওয়া উচিত {want:.3f} ms। প্রতিটি র‍্যাঙ্কের পর্বগুলো যোগ করো, তারপর সবচেয়ে বড় মোটটি নাও।",
        "en": "ddp_step_s is wrong: you gave {got:.3f} ms, it should be {want:.3f} ms. Add up each rank's phases, then take the largest total.",
    },
    "lesson05b.check.faster_name": {
        "bn": "faster হবে \"ddp\" বা \"dp\" — পাওয়া গেল {got}।",
        "en": "faster must be \"ddp\" or \"dp\" — got {got}.",
    },
    "lesson05b.check.faster_wrong": {
        "bn": "faster উল্টো হয়েছে: DataParallel-এর ধাপ {dp_ms:.3f} ms, DDP-র {ddp_ms:.3f} ms — যার ধাপ ছোট, সেই দ্রুত। সংখ্যা থেকে সিদ্ধান্ত নাও, আগে থেকে ধরে নিও না (একটি টেবিলে DataParallel-ই জেতে)।",
        "en": "faster is the wrong way round: DataParallel's step is {dp_ms:.3f} ms, DDP's {ddp_ms:.3f} ms — the shorter step is the faster one. Decide from the numbers, not beforehand (in one table DataParallel wins).",
    },
    "lesson05b.check.share_percent": {
        "bn": "serial_share শতাংশে দিয়েছ ({got:.4g})। 0 থেকে 1-এর মধ্যে একটি ভাগ দাও (যেমন 0.4, 40 নয়)।",
        "en": "You gave serial_share in percent ({got:.4g}). Give a share between 0 and 1 (e.g. 0.4, not 40).",
    },
    "lesson05b.check.share_parallel": {
        "bn": "serial_share উল্টো: তুমি দিলে {got:.3f}, যা থ্রেডে একসাথে চলা পর্বগুলোর (ফরওয়ার্ড, ব্যাকওয়ার্ড) ভাগ। চাই শুধু ডিভাইস 0-এর পর্বগুলোর ভাগ ({want:.3f})।",
        "en": "serial_share is the other way round: your {got:.3f} is the share of the phases the threads run together (forward, backward). We want the device-0-only phases' share ({want:.3f}).",
    },
    "lesson05b.check.share_wrong": {
        "bn": "serial_share ভুল: তুমি দিলে {got:.3f}, হওয়া উচিত {want:.3f}। শুধু এই পর্বগুলো যোগ করো: {serial}, তারপর DataParallel-এর পুরো ধাপ দিয়ে ভাগ করো।",
        "en": "serial_share is wrong: you gave {got:.3f}, it should be {want:.3f}. Add only these phases: {serial}, then divide by DataParallel's whole step.",
    },
    "lesson05b.check.compare_ok": {
        "bn": "ঠিক! তোমার মাপে DataParallel-এর ধাপ {dp_ms:.2f} ms, DDP-র {ddp_ms:.2f} ms — দ্রুত: {faster}। DataParallel-এর {share:.0%} সময় শুধু ডিভাইস 0 কাজ করেছে; ডিভাইস যত বাড়াও, এই অংশ কমে না (বরং replicate আর গ্রেডিয়েন্ট যোগ বাড়ে)।",
        "en": "Correct! In your measurement DataParallel's step is {dp_ms:.2f} ms, DDP's {ddp_ms:.2f} ms — faster: {faster}. For {share:.0%} of DataParallel's time only device 0 worked; adding devices does not shrink that part (replicate and reducing gradients even grow).",
    },
    "lesson05b.check.compare_ok_tables": {
        "bn": "ঠিক! সব নির্দিষ্ট আর তৈরি-করা টেবিলেই মিলেছে (1 থেকে 6টি র‍্যাঙ্ক)। (মাপা সংখ্যাগুলো দাওনি, তাই তোমার মেশিনের সিদ্ধান্ত দেখানো গেল না: check_compare(compare, dp_phases, ddp_phases) লেখো।)",
        "en": "Correct on every fixed and generated table (1 to 6 ranks). (You did not pass the measured numbers, so there is no verdict for your machine: write check_compare(compare, dp_phases, ddp_phases).)",
    },
    "lesson05b.check.ring_not_number": {
        "bn": "allreduce_time একটি সংখ্যা (সেকেন্ড) ফেরত দেবে, পাওয়া গেল {got}।",
        "en": "allreduce_time must return one number (seconds), got {got}.",
    },
    "lesson05b.check.ring_no_factor_two": {
        "bn": "p={p}, n={n}: তুমি দিলে {got:.4f} ms, হওয়া উচিত {want:.4f} ms। তোমার সূত্র অর্ধেক: রিং অল-রিডিউস দুই পর্বের (scatter-reduce আর all-gather), তাই 2(p−1) বার্তা আর 2(p−1)/p·n বাইট।",
        "en": "p={p}, n={n}: you gave {got:.4f} ms, it should be {want:.4f} ms. Your formula is half of it: a ring all-reduce has two phases (scatter-reduce and all-gather), so 2(p−1) messages and 2(p−1)/p·n bytes.",
    },
    "lesson05b.check.ring_no_share": {
        "bn": "p={p}, n={n}: তুমি দিলে {got:.4f} ms, হওয়া উচিত {want:.4f} ms। রিং-এ প্রতিটি বার্তা পুরো টেনসর নয়, তার 1/p টুকরো: বাইটের অংশ 2(p−1)/p·n·β, 2(p−1)·n·β নয়। (তোমার সূত্র 2(p−1)·(α + n·β) — একটিমাত্র প্যারামিটার সার্ভারের খরচ।)",
        "en": "p={p}, n={n}: you gave {got:.4f} ms, it should be {want:.4f} ms. In a ring each message is one 1/p chunk, not the whole tensor: the byte term is 2(p−1)/p·n·β, not 2(p−1)·n·β. (Yours is 2(p−1)·(α + n·β) — one central parameter server's cost.)",
    },
    "lesson05b.check.ring_p_not_p_minus_1": {
        "bn": "p={p}, n={n}: তুমি দিলে {got:.4f} ms, হওয়া উচিত {want:.4f} ms। প্রতিটি পর্বে p−1 ধাপ (নিজের টুকরো নিজেকে পাঠাতে হয় না): p নয়, p−1 বসাও।",
        "en": "p={p}, n={n}: you gave {got:.4f} ms, it should be {want:.4f} ms. Each phase has p−1 steps (no rank sends its own chunk to itself): use p−1, not p.",
    },
    "lesson05b.check.ring_alpha_once": {
        "bn": "p={p}, n={n}: তুমি দিলে {got:.4f} ms, হওয়া উচিত {want:.4f} ms। লেটেন্সি α একবার নয়, প্রতিটি বার্তায় একবার: রিং-এ 2(p−1)টি বার্তা, তাই 2(p−1)·α।",
        "en": "p={p}, n={n}: you gave {got:.4f} ms, it should be {want:.4f} ms. The latency α is paid per message, not once: a ring sends 2(p−1) messages, so 2(p−1)·α.",
    },
    "lesson05b.check.ring_wrong": {
        "bn": "p={p}, n={n}: তুমি দিলে {got:.4f} ms, হওয়া উচিত {want:.4f} ms। সূত্র: 2(p−1)·α + 2(p−1)/p · n·β।",
        "en": "p={p}, n={n}: you gave {got:.4f} ms, it should be {want:.4f} ms. The formula: 2(p−1)·α + 2(p−1)/p · n·β.",
    },
    "lesson05b.check.ring_ok": {
        "bn": "ঠিক! 1 থেকে 16টি প্রসেসে, 1 বাইট থেকে বড় বার্তায় (p দিয়ে ভাগ না-যাওয়া আকারেও) তোমার সূত্র রিং-এর সাথে মিলেছে।",
        "en": "Correct! Your formula matches the ring's for 1 to 16 processes, from 1 byte to large messages (sizes p does not divide too).",
    },
}
