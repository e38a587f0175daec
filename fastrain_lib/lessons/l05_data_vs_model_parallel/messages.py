"""Messages of lesson 05 (data parallel vs model parallel): panels, plots, checks."""

MESSAGES = {
    # --- DDP scaling panel
    "lesson05.panel_title": {"bn": "DDP: প্রসেস বাড়ালে প্রতি সেকেন্ডে কয়টি নমুনা?", "en": "DDP: samples per second as processes are added"},
    "lesson05.processes": {"bn": "সর্বোচ্চ প্রসেস", "en": "max processes"},
    "lesson05.batch": {"bn": "প্রতি প্রসেসে batch", "en": "batch per process"},
    "lesson05.backend": {"bn": "ব্যাকএন্ড", "en": "backend"},
    "lesson05.hidden": {"bn": "মডেলের আকার (hidden)", "en": "model size (hidden)"},
    "lesson05.nprocs": {"bn": "প্রসেসের সংখ্যা", "en": "number of processes"},
    "lesson05.ideal": {"bn": "আদর্শ (রৈখিক)", "en": "ideal (linear)"},
    # the panel's own line, told apart from the reference lines (other workloads, other thread counts)
    "lesson05.measured_here": {"bn": "এই PC-তে মাপা: SimpleNN, প্রতি প্রসেসে 1টি থ্রেড",
                               "en": "measured here: SimpleNN, 1 thread per process"},
    "lesson05.efficiency": {"bn": "স্কেলিং দক্ষতা (%)", "en": "scaling efficiency (%)"},
    "lesson05.scaling_title": {"bn": "DDP থ্রুপুট: {cores} কোরের মেশিনে মাপা", "en": "DDP throughput: measured on a {cores}-core machine"},
    "lesson05.efficiency_title": {"bn": "দক্ষতা = গতিবৃদ্ধি ÷ প্রসেস", "en": "efficiency = speed-up ÷ processes"},
    "lesson05.col_global_batch": {"bn": "মোট batch", "en": "global batch"},
    "lesson05.col_identical": {"bn": "সব র‍্যাঙ্কে ওজন এক?", "en": "weights identical on all ranks?"},
    "lesson05.oversubscribed": {
        "bn": "সতর্কতা: {procs} প্রসেস কিন্তু কোর মাত্র {cores}টি — প্রসেসগুলো কোর ভাগাভাগি করছে, তাই এখানে গতি বাড়বে না।",
        "en": "Note: {procs} processes but only {cores} cores — the processes share cores, so no speed-up is possible here.",
    },
    # --- what one DDP step costs, and the verdict chosen from it (fastrain_lib.distributed.ddp_costs)
    "lesson05.cost_compute": {"bn": "গণনা, 1টি প্রসেস (ms)", "en": "compute, 1 process (ms)"},
    "lesson05.cost_title": {"bn": "এক ধাপের খরচ: গণনা বনাম অল-রিডিউস", "en": "one step's cost: compute vs all-reduce"},
    "lesson05.v_wins": {
        "bn": "{w}টি প্রসেস এখানে জিতেছে: এক প্রসেসের চেয়ে {speedup:.2f}× দ্রুত। কারণ প্রতি ধাপে গণনা {compute_ms:.1f} ms, "
              "আর গ্রেডিয়েন্টের অল-রিডিউস মাত্র {allreduce_ms:.1f} ms — যোগাযোগের খরচ বাঁচানো গণনার চেয়ে কম।",
        "en": "{w} processes win here: {speedup:.2f}× faster than one. Each step computes for {compute_ms:.1f} ms, "
              "while the gradients' all-reduce takes only {allreduce_ms:.1f} ms — communication costs less than the compute it saves.",
    },
    "lesson05.v_comm_bound": {
        "bn": "{w}টি প্রসেসে গতিবৃদ্ধি {speedup:.2f}×: গ্রেডিয়েন্টের অল-রিডিউস ({allreduce_ms:.1f} ms) এক ধাপের গণনার "
              "({compute_ms:.1f} ms) কাছাকাছি বা বেশি, তাই যোগাযোগই সময় খায়। প্রতি প্রসেসে batch বা মডেল বড় করো: গণনা বাড়ে, অল-রিডিউস একই থাকে।",
        "en": "{w} processes give {speedup:.2f}×: the gradients' all-reduce ({allreduce_ms:.1f} ms) takes about as long as or longer than "
              "a step's compute ({compute_ms:.1f} ms), so communication eats the time. Use a larger batch per process or a larger model: "
              "compute grows, the all-reduce stays the same.",
    },
    "lesson05.v_oversubscribed": {
        "bn": "{w}টি প্রসেস কিন্তু কোর মাত্র {cores}টি: প্রসেসগুলো কোর ভাগাভাগি করে পালা করে চলে। এমন সারি প্রসেস বাড়ানোর লাভ মাপে না — "
              "তুলনা করো শুধু কোরের সমান বা কম প্রসেসে।",
        "en": "{w} processes but only {cores} cores: the processes take turns on shared cores. Such a row does not measure what more "
              "processes gain — compare only at as many processes as cores or fewer.",
    },
    "lesson05.v_oversubscribed_speed": {
        "bn": "{w}টি প্রসেসে (কোর {cores}টি) মাপা গতিবৃদ্ধি {speedup:.2f}×, এক প্রসেসের তুলনায়।",
        "en": "{w} processes (on {cores} cores): measured speed-up {speedup:.2f}× over one process.",
    },
    "lesson05.quiet_mark": {"bn": " (✓ শান্ত মাপ)", "en": " (✓ quiet measurement)"},
    "lesson05.rerun_offer": {
        "bn": "⚠️ কিছু মাপ গোলমেলে ছিল: পরের সেলটি একবার আবার মাপে, শান্ত সেটিংয়ে ({how})।",
        "en": "⚠️ Some measurements were noisy: the next cell measures once more, at the quieter setting ({how}).",
    },
    "lesson05.rerun_how_ddp": {"bn": "শুধু কোরের সমান বা কম প্রসেস, প্রতিটিতে একটি থ্রেড",
                               "en": "only as many processes as cores or fewer, one thread each"},
    "lesson05.rerun_how_pipe": {"bn": "ধাপ কোরের সমান বা কম, প্রতিটিতে একটি থ্রেড",
                                "en": "no more stages than cores, one thread each"},
    "lesson05.rerun_how_ar": {"bn": "কোরের সমান বা কম প্রসেস, প্রতিটিতে একটি থ্রেড, কোরগুলো খালি হওয়ার জন্য {wait_s:g} সেকেন্ড পর্যন্ত অপেক্ষা করে",
                              "en": "as many processes as cores or fewer, one thread each, after waiting up to {wait_s:g} s for the cores to be free"},
    "lesson05.rerun_not_needed": {
        "bn": "✓ আগের মাপ শান্ত ছিল: আবার মাপার দরকার নেই।",
        "en": "✓ The measurement above was quiet: no need to measure again.",
    },
    "lesson05.rerun_done": {
        "bn": "আবার মাপা হলো, শান্ত সেটিংয়ে: {what}।",
        "en": "Measured again at the quieter setting: {what}.",
    },
    "lesson05.rerun_what_ddp": {"bn": "প্রসেস {counts}", "en": "processes {counts}"},
    "lesson05.rerun_what_pipe": {"bn": "K={k}, M={m}", "en": "K={k}, M={m}"},
    "lesson05.rerun_what_ar": {"bn": "N={n}, প্রতিটি সংখ্যা-আকার", "en": "N={n}, every size"},
    # Said when this PC could not measure DDP quietly: quiet machines' numbers, labelled as theirs (issue 38)
    "lesson05.reference_ddp": {
        "bn": "শান্ত মেশিনে কোর্সের বেঞ্চমার্ক স্যুট যা মেপেছে (reference/ ফোল্ডার; প্লটের বিন্দু-রেখা): {runs}। "
              "ওই রানগুলো একটি ছোট GPT প্রশিক্ষণ দিয়েছে; এক প্রসেস চালিয়েছে যত কোর তত থ্রেড, আর N প্রসেস কোরগুলো ভাগ করে নিয়েছে "
              "(প্রতিটিতে কোর ÷ N থ্রেড): তাই সেখানকার গতিবৃদ্ধি দেখায়, একই কোর থ্রেডের বদলে প্রসেসে ভাগ করলে কী লাভ। "
              "এগুলো এই PC-র মাপ নয়, এই প্যানেলের নেটওয়ার্কেরও নয়।",
        "en": "What the course's benchmark suite measured on quiet machines (reference/ folder; the plot's dotted lines): {runs}. "
              "Those runs trained a small GPT; one process ran as many threads as cores, and N processes shared the cores "
              "(cores ÷ N threads each): so the speed-up there shows what splitting the same cores into processes instead of "
              "threads gains. These are not this PC's numbers, nor this panel's network's.",
    },
    # The legend of a reference line from the suite's ddp family (panel._workload_label)
    "lesson05.ref_workload_gpt": {"bn": "GPT, 1 প্রসেসে {threads}টি থ্রেড", "en": "GPT, 1 process on {threads} threads"},
    "lesson05.reference_ddp_item": {
        "bn": "{hardware}, {date}: {w}টি প্রসেসে গতিবৃদ্ধি {speedup:.2f}× (স্কেলিং দক্ষতা {efficiency}%)",
        "en": "{hardware}, {date}: {w} processes, speed-up {speedup:.2f}× (scaling efficiency {efficiency}%)",
    },
    "lesson05.v_contention": {
        "bn": "{w}টি প্রসেসে গতিবৃদ্ধি মাত্র {speedup:.2f}×, যদিও অল-রিডিউস ({allreduce_ms:.1f} ms) গণনার ({compute_ms:.1f} ms) চেয়ে "
              "কম: মাপা ধাপ {step_ms:.1f} ms, গণনা + অল-রিডিউস মিলে যা হওয়ার কথা ({expected_ms:.1f} ms) তার চেয়ে বেশি। প্রসেসগুলো একে অপরকে "
              "ধীর করেছে — মেশিনে অন্য কাজ চলছে (কোর খালি নেই), বা কোরগুলো মেমরি-ব্যান্ডউইথ ভাগ করে। অন্য কাজ বন্ধ করে আবার চালাও।",
        "en": "{w} processes give only {speedup:.2f}×, although the all-reduce ({allreduce_ms:.1f} ms) is shorter than the compute "
              "({compute_ms:.1f} ms): the measured step is {step_ms:.1f} ms, more than compute + all-reduce ({expected_ms:.1f} ms). "
              "The processes slowed each other down — other work is running on this machine (no free core), or the cores share "
              "memory bandwidth. Stop other work and run again.",
    },
    "lesson05.v_pipe_more": {
        "bn": "K={k}: মাপা অলস ভাগ {idle:.0%}, সূত্রের {formula:.0%}-এর চেয়ে বেশি — send/recv-এর খরচ আর ধাপগুলোর অসমান কাজ সূত্রে ধরা নেই।",
        "en": "K={k}: measured idle share {idle:.0%}, more than the formula's {formula:.0%} — send/recv costs and unequal stages are not in the formula.",
    },
    "lesson05.v_pipe_match": {
        "bn": "K={k}: মাপা অলস ভাগ {idle:.0%}, সূত্র বলে {formula:.0%} — এই রানে প্রায় মিলে গেছে।",
        "en": "K={k}: measured idle share {idle:.0%}, the formula says {formula:.0%} — close in this run.",
    },
    "lesson05.v_pipe_less": {
        "bn": "K={k}: মাপা অলস ভাগ {idle:.0%}, সূত্রের {formula:.0%}-এর চেয়ে কম — সূত্রটি প্রতিটি ধাপে সমান কাজ ধরে, এখানে ধাপগুলোর কাজ আলাদা (শেষ ধাপে loss-ও আছে); মাপে গোলমালও থাকে।",
        "en": "K={k}: measured idle share {idle:.0%}, less than the formula's {formula:.0%} — the formula assumes equal work per stage, and here the stages differ (the last also computes the loss); measurements are noisy too.",
    },
    "lesson05.v_pipe_cores": {
        "bn": "K={k}টি ধাপ কিন্তু কোর মাত্র {cores}টি: প্রসেসগুলো পালা করে চলে, তাই মাপা অলস ভাগ ({idle:.0%}) সূত্রের ({formula:.0%}) সাথে তুলনীয় নয়।",
        "en": "K={k} stages but only {cores} cores: the processes take turns, so the measured idle share ({idle:.0%}) cannot be compared with the formula ({formula:.0%}).",
    },
    "lesson05.v_ar_ring": {
        "bn": "N = {n}, {numel} সংখ্যা: রিং দ্রুত ছিল ({ring_ms:.2f} ms), সরল সার্ভার {naive_ms:.2f} ms।",
        "en": "N = {n}, {numel} numbers: the ring was faster ({ring_ms:.2f} ms), the simple server {naive_ms:.2f} ms.",
    },
    "lesson05.v_ar_server": {
        "bn": "N = {n}, {numel} সংখ্যা: সরল সার্ভার দ্রুত ছিল ({naive_ms:.2f} ms), রিং {ring_ms:.2f} ms — এখানে বার্তার সংখ্যা (লেটেন্সি) বাইটের চেয়ে বেশি গুরুত্বপূর্ণ।",
        "en": "N = {n}, {numel} numbers: the simple server was faster ({naive_ms:.2f} ms), the ring {ring_ms:.2f} ms — here the number of messages (latency) matters more than the bytes.",
    },
    "lesson05.v_ar_server_big": {
        "bn": "N = {n}, {numel} সংখ্যা: সরল সার্ভার দ্রুত ছিল ({naive_ms:.2f} ms), রিং {ring_ms:.2f} ms। রিংয়ের সুবিধা হলো কোনো একটি সংযোগে (link) "
              "ডেটার 2(N−1)/N ভাগের বেশি যায় না — কিন্তু এখানে {n}টি প্রসেসই একই মেশিনের মেমরি ভাগ করে, বাইট ছড়িয়ে দেওয়ার মতো আলাদা সংযোগ নেই; "
              "তাই রিংয়ের প্রতি প্রসেসে {steps}টি ধাপ সার্ভারের এক দফা পাঠানো-ফেরত পাওয়ার চেয়ে বেশি খরচ করে।",
        "en": "N = {n}, {numel} numbers: the simple server was faster ({naive_ms:.2f} ms), the ring {ring_ms:.2f} ms. The ring's advantage is that no "
              "single link carries more than 2(N−1)/N of the data — but here all {n} processes share one machine's memory, so there are no separate "
              "links to spread the bytes over, and the ring's {steps} steps per process cost more than the server's one send and one receive.",
    },
    "lesson05.v_ar_oversubscribed": {
        "bn": "N = {n}টি প্রসেস কিন্তু কোর মাত্র {cores}টি: প্রসেসগুলো পালা করে কোর পায়, তাই এমন সারির সময় রিং বা সার্ভারের নিজের খরচ মাপে না। "
              "তুলনা করো শুধু কোরের সমান বা কম প্রসেসে।",
        "en": "N = {n} processes but only {cores} cores: the processes take turns on the cores, so such rows do not measure the ring's or the "
              "server's own cost. Compare only at as many processes as cores or fewer.",
    },
    "lesson05.v_ar_oversubscribed_vs": {
        "bn": "{numel} সংখ্যায় N = {n}-এ রিং {ring_ms:.2f} ms, সার্ভার {naive_ms:.2f} ms; N = {m}-এ (কোরে আঁটে) {m_ring_ms:.2f} ms আর "
              "{m_naive_ms:.2f} ms — দুটোই N = {n}-এ ধীর, কোরের জন্য অপেক্ষাও এই সময়ে ঢুকেছে।",
        "en": "At {numel} numbers N = {n} took ring {ring_ms:.2f} ms, server {naive_ms:.2f} ms; N = {m} (which fits the cores) took "
              "{m_ring_ms:.2f} ms and {m_naive_ms:.2f} ms — both slower at N = {n}, where waiting for a core is part of the time.",
    },
    "lesson05.v_ar_oversubscribed_mixed": {
        "bn": "{numel} সংখ্যায় N = {n}-এ রিং {ring_ms:.2f} ms, সার্ভার {naive_ms:.2f} ms; N = {m}-এ {m_ring_ms:.2f} ms আর {m_naive_ms:.2f} ms — "
              "দুটো পদ্ধতি একই দিকে বদলায়নি, তাই এখান থেকে কোনো কারণ টানা হলো না।",
        "en": "At {numel} numbers N = {n} took ring {ring_ms:.2f} ms, server {naive_ms:.2f} ms; N = {m} took {m_ring_ms:.2f} ms and "
              "{m_naive_ms:.2f} ms — the two methods did not move the same way, so no cause is drawn from them.",
    },
    # names in a busy ratio's sentence (noise.ratio_busy): "<ring> ÷ <server>" on a busy machine
    "lesson05.busy_ring": {"bn": "রিং (N = {n}, {numel:,} সংখ্যা)", "en": "the ring (N = {n}, {numel:,} numbers)"},
    "lesson05.busy_naive": {"bn": "সরল সার্ভার", "en": "the simple server"},
    "lesson05.busy_torch": {"bn": "gloo-র dist.all_reduce", "en": "gloo's dist.all_reduce"},
    "lesson05.v_ar_noisy": {
        "bn": "⚠️ N = {n}, {numel} সংখ্যা: এই সারির মাপ গোলমেলে (মেশিন ব্যস্ত ছিল বা পুনরাবৃত্তিগুলো মেলেনি), তাই এখান থেকে কোনো কারণ বলা হলো না — অন্য কাজ বন্ধ করে সেলটি আবার চালাও।",
        "en": "⚠️ N = {n}, {numel} numbers: this row's measurement is noisy (the machine was busy or the repeats disagree), so no cause is drawn from it — stop other work and run the cell again.",
    },
    "lesson05.v_ar_out_of_order": {
        "bn": "⚠️ N = {n}, {numel} সংখ্যা: এই সারি বড় টেনসরের সারির চেয়েও ধীর (রিং {ring_ms:.2f} ms, সার্ভার {naive_ms:.2f} ms) — শান্ত মেশিনে বেশি বাইট কখনো কম সময় নেয় না, "
              "তাই এই মাপ গোলমেলে; কোনো কারণ বলা হলো না। সেলটি আবার চালাও।",
        "en": "⚠️ N = {n}, {numel} numbers: this row is slower than the row of a larger tensor (ring {ring_ms:.2f} ms, server {naive_ms:.2f} ms) — on a quiet machine more bytes never take less time, "
              "so this measurement is noisy; no cause is given. Run the cell again.",
    },
    "lesson05.v_ddp_noisy": {
        "bn": "⚠️ {w}টি প্রসেসে গতিবৃদ্ধি {speedup:.2f}×, কিন্তু এই রান (বা তুলনার এক-প্রসেস রান) গোলমেলে ছিল — মেশিনে অন্য কাজ চলছিল বা ধাপের সময় মেলেনি; "
              "তাই কোনো কারণ বলা হলো না। অন্য কাজ বন্ধ করে প্যানেল আবার চালাও।",
        "en": "⚠️ {w} processes give {speedup:.2f}×, but this run (or the one-process run it is compared with) was noisy — other work was running or the steps disagree; "
              "so no cause is given. Stop other work and run the panel again.",
    },
    "lesson05.v_pipe_noisy": {
        "bn": "⚠️ K={k}: মাপা অলস ভাগ {idle:.0%}, সূত্র {formula:.0%} — কিন্তু এই রান গোলমেলে ছিল (মেশিন ব্যস্ত), তাই ফারাকের কোনো কারণ বলা হলো না; আবার চালাও।",
        "en": "⚠️ K={k}: measured idle share {idle:.0%}, formula {formula:.0%} — but this run was noisy (the machine was busy), so no reason for the gap is given; run it again.",
    },
    "lesson05.bytes_col_way": {"bn": "পদ্ধতি", "en": "method"},
    "lesson05.bytes_col_who": {"bn": "কে পাঠায়", "en": "who sends"},
    "lesson05.bytes_col_gb": {"bn": "প্রতি ধাপে পাঠায় (GB)", "en": "sent per step (GB)"},
    "lesson05.bytes_ring": {"bn": "রিং অল-রিডিউস", "en": "ring all-reduce"},
    "lesson05.bytes_server": {"bn": "একটি কেন্দ্রীয় সার্ভার", "en": "one central server"},
    "lesson05.bytes_worker": {"bn": "সার্ভারের একজন কর্মী", "en": "a parameter-server worker"},
    "lesson05.bytes_each_rank": {"bn": "প্রতিটি র‍্যাঙ্ক", "en": "every rank"},
    "lesson05.bytes_the_server": {"bn": "সার্ভার", "en": "the server"},
    "lesson05.bytes_the_worker": {"bn": "প্রতিটি কর্মী", "en": "each worker"},
    "lesson05.v_ar_torch": {
        "bn": "N = {n}, {numel} সংখ্যা: gloo-র dist.all_reduce {torch_ms:.2f} ms, আমাদের Python-এ লেখা রিং {ring_ms:.2f} ms।",
        "en": "N = {n}, {numel} numbers: gloo's dist.all_reduce {torch_ms:.2f} ms, our ring written in Python {ring_ms:.2f} ms.",
    },
    # --- notebook plots
    "lesson05.no_gpu_reference": {
        "bn": "reference/ ফোল্ডারে এখনো GPU-তে মাপা কোনো DDP ফল নেই; বিন্দু-রেখাগুলো (যদি থাকে) অন্য CPU-তে মাপা।",
        "en": "reference/ holds no DDP results measured on GPUs yet; the dotted lines (if any) were measured on other CPUs.",
    },
    "lesson05.no_nccl": {
        "bn": "NCCL-এর জন্য প্রতি প্রসেসে একটি GPU লাগে; এখানে তা নেই, তাই gloo ব্যবহার করা হলো।",
        "en": "NCCL needs one GPU per process; there are not enough here, so gloo was used.",
    },
    # --- pipeline panel and plots
    "lesson05.pipe_title": {"bn": "পাইপলাইন: ধাপ আর মাইক্রো-ব্যাচ বদলে বাবল দেখো", "en": "Pipeline: change stages and micro-batches, watch the bubble"},
    "lesson05.stages": {"bn": "ধাপ (K, প্রসেস)", "en": "stages (K, processes)"},
    "lesson05.width": {"bn": "লেয়ারের চওড়া", "en": "layer width"},
    "lesson05.time_units": {"bn": "সময় (ফরওয়ার্ড = 1 একক)", "en": "time (forward = 1 unit)"},
    "lesson05.stage_n": {"bn": "ধাপ {k}", "en": "stage {k}"},
    "lesson05.gantt_measured": {
        "bn": "মাপা টাইমলাইন: K={k}, M={m} — অলস {idle:.0%} (সূত্র {formula:.0%})",
        "en": "measured timeline: K={k}, M={m} — idle {idle:.0%} (formula {formula:.0%})",
    },
    "lesson05.gantt_ideal": {
        "bn": "কাগজে-কলমে GPipe সূচি (যোগাযোগের খরচ শূন্য ধরে): অলস {idle:.0%}",
        "en": "GPipe schedule on paper (no communication cost): idle {idle:.0%}",
    },
    "lesson05.legend_a": {"bn": "অল-রিডিউস", "en": "all-reduce"},
    "lesson05.col_step": {"bn": "ধাপের সময় (ms)", "en": "step time (ms)"},
    # --- all-reduce plots
    "lesson05.bytes_title": {"bn": "একটি অল-রিডিউসে প্রতি প্রসেস কত বাইট পাঠায় (S = {mb:.1f} MB)",
                             "en": "bytes sent per process in one all-reduce (S = {mb:.1f} MB)"},
    "lesson05.bytes_y": {"bn": "পাঠানো বাইট ÷ S", "en": "bytes sent ÷ S"},
    "lesson05.server": {"bn": "প্যারামিটার সার্ভার (রুট)", "en": "parameter server (root)"},
    "lesson05.ring": {"bn": "রিং (প্রতিটি প্রসেস)", "en": "ring (every process)"},
    "lesson05.ring_measured": {"bn": "রিং, মাপা (trace)", "en": "ring, measured (trace)"},
    "lesson05.server_measured": {"bn": "সার্ভার, মাপা (trace)", "en": "server, measured (trace)"},
    "lesson05.stepper_title": {"bn": "রিং অল-রিডিউস, ধাপ {step}/{total}: {phase}", "en": "ring all-reduce, step {step}/{total}: {phase}"},
    "lesson05.phase_start": {"bn": "শুরু: প্রত্যেকের কাছে শুধু নিজের সংখ্যা", "en": "start: everyone has only its own numbers"},
    "lesson05.phase_sr": {"bn": "scatter-reduce (টুকরো পাঠাও, যোগ করো)", "en": "scatter-reduce (send a chunk, add)"},
    "lesson05.phase_ag": {"bn": "all-gather (সম্পূর্ণ টুকরো ছড়িয়ে দাও)", "en": "all-gather (pass the finished chunks on)"},
    "lesson05.chunk": {"bn": "টুকরো {c}", "en": "chunk {c}"},
    "lesson05.rank_n": {"bn": "র‍্যাঙ্ক {r}", "en": "rank {r}"},
    # --- hybrid layout
    "lesson05.layout_title": {"bn": "হাইব্রিড: {k} পাইপলাইন ধাপ × {r} ডেটা-প্যারালেল কপি = {w} প্রসেস",
                              "en": "hybrid: {k} pipeline stages × {r} data-parallel replicas = {w} processes"},
    "lesson05.layout_box": {"bn": "র‍্যাঙ্ক {rank}\nধাপ {stage}, কপি {replica}", "en": "rank {rank}\nstage {stage}, replica {replica}"},
    "lesson05.layout_act": {"bn": "অ্যাক্টিভেশন →\n← গ্রেডিয়েন্ট", "en": "activations →\n← gradients"},
    "lesson05.layout_ar": {"bn": "অল-রিডিউস\n(গ্রুপ {ranks})", "en": "all-reduce\n(group {ranks})"},
    # --- checks
    "lesson05.check_worker_failed": {
        "bn": "আসল প্রসেসে তোমার কোড চালাতে গিয়ে সমস্যা হয়েছে। মনে রেখো: ফাংশনটি নিজে-সম্পূর্ণ হতে হবে "
              "(দরকারি import ফাংশনের ভেতরে)। বিস্তারিত:\n{error}",
        "en": "Running your code in real processes failed. Remember: the function must be self-contained "
              "(imports inside it). Details:\n{error}",
    },
    "lesson05.check_no_source": {
        "bn": "ফাংশনের সোর্স কোড পড়া গেল না, তাই আসল প্রসেসে পাঠানো যায়নি। ফাংশনটি একটি নোটবুক সেলে def দিয়ে লেখো।",
        "en": "Could not read the function's source, so it cannot be sent to real processes. Define it with def in a notebook cell.",
    },
    "lesson05.check_ring_deadlock": {
        "bn": "রিং আটকে গেছে: কোনো র‍্যাঙ্ক এমন টুকরোর অপেক্ষায় যা কেউ পাঠায়নি। প্রতিটি ধাপে প্রত্যেক র‍্যাঙ্ক ঠিক একবার exchange ডাকবে।",
        "en": "The ring deadlocked: a rank waits for a chunk nobody sent. In every step each rank calls exchange exactly once.",
    },
    "lesson05.check_ring_steps": {
        "bn": "scatter-reduce-এ {calls}টি ধাপ হয়েছে, হওয়া উচিত {want}টি (world_size − 1)। range(world_size - 1) ব্যবহার করো।",
        "en": "scatter-reduce made {calls} steps; it should make {want} (world_size − 1). Use range(world_size - 1).",
    },
    "lesson05.check_ring_off_by_one": {
        "bn": "টুকরোর সূচকে এক ঘরের ভুল (off-by-one): ধাপ s-এ র‍্যাঙ্ক r পাঠায় টুকরো (r − s) % N, আর পাওয়া টুকরো যোগ করে "
              "(r − s − 1) % N-এ — যেটা পাঠাল সেটায় নয়।",
        "en": "An off-by-one chunk index: in step s rank r sends chunk (r − s) % N and adds what it receives into "
              "chunk (r − s − 1) % N — not into the one it sent.",
    },
    "lesson05.check_ring_overwrite": {
        "bn": "পাওয়া টুকরোটি তুমি নিজের টুকরোর উপর বসিয়ে দিয়েছ (copy/=), যোগ করোনি। scatter-reduce-এ += লাগে; "
              "শুধু all-gather পর্বে কপি করা হয়।",
        "en": "You overwrote your chunk with the received one instead of adding. scatter-reduce needs +=; "
              "only the all-gather phase copies.",
    },
    "lesson05.check_ring_not_in_place": {
        "bn": "chunks[recv] = chunks[recv] + ... লিখলে তালিকায় নতুন টেনসর বসে, আসল টেনসরের অংশটি (view) বদলায় না। "
              "ইন-প্লেস বদলাও: chunks[recv] += received।",
        "en": "chunks[recv] = chunks[recv] + ... puts a new tensor in the list; the real tensor's slice (a view) does not change. "
              "Update in place: chunks[recv] += received.",
    },
    "lesson05.check_ring_wrong": {
        "bn": "ফল ভুল ({world} র‍্যাঙ্ক, {numel} সংখ্যা): সব র‍্যাঙ্কের যোগফল আসেনি। প্রতি ধাপে পাঠানো ও যোগ করার টুকরোর সূচক আবার দেখো।",
        "en": "Wrong result ({world} ranks, {numel} numbers): not the sum over all ranks. Check which chunk you send and add into.",
    },
    "lesson05.check_ring_real_mismatch": {
        "bn": "সিমুলেশনে ঠিক ছিল, কিন্তু আসল প্রসেসে dist.all_reduce-এর সাথে মিলল না (সর্বোচ্চ পার্থক্য {error:.3g})। "
              "টুকরোগুলো কি ইন-প্লেস (in-place) বদলাচ্ছ?",
        "en": "Right in the simulation but not equal to dist.all_reduce in real processes (max difference {error:.3g}). "
              "Do you update the chunks in place?",
    },
    "lesson05.check_ring_ok_sim": {
        "bn": "ঠিক হয়েছে! 2, 3 ও 4 র‍্যাঙ্কের সিমুলেশনে (এক প্রসেসে থ্রেড দিয়ে) যোগফল মিলেছে।",
        "en": "Correct! The sums match in the simulation with 2, 3 and 4 ranks (threads in one process).",
    },
    "lesson05.check_ring_ok_real": {
        "bn": "ঠিক হয়েছে! সিমুলেশনে মিলেছে, আর {world}টি আসল প্রসেসে তোমার scatter-reduce দিয়ে রিং অল-রিডিউস "
              "dist.all_reduce-এর সমান (সর্বোচ্চ পার্থক্য {error:.2g})।",
        "en": "Correct! It matches in the simulation, and in {world} real processes the ring with your scatter-reduce "
              "equals dist.all_reduce (max difference {error:.2g}).",
    },
    "lesson05.check_bubble_off_by_one": {
        "bn": "হরে এক ঘরের ভুল: মোট সময়ের ঘর M + K − 1 (M মাইক্রো-ব্যাচ, আর পাইপলাইন ভরতে K − 1 ঘর), M + K নয়।",
        "en": "Off by one in the denominator: the step lasts M + K − 1 slots (M micro-batches plus K − 1 to fill the pipe), not M + K.",
    },
    "lesson05.check_bubble_denominator": {
        "bn": "হরে শুধু M নয়: অলস ভাগ = অলস সময় ÷ মোট সময়, আর মোট সময় M + K − 1 ঘর।",
        "en": "The denominator is not just M: idle share = idle time ÷ total time, and the total is M + K − 1 slots.",
    },
    "lesson05.check_bubble_wrong": {
        "bn": "K={k}, M={m}-এ পাওয়া গেল {got:.4f}, হওয়া উচিত {want:.4f}। সূত্র: (K − 1) / (M + K − 1)।",
        "en": "For K={k}, M={m} got {got:.4f}, expected {want:.4f}. Formula: (K − 1) / (M + K − 1).",
    },
    "lesson05.check_not_a_number": {
        "bn": "ফাংশনটি একটি সংখ্যা (float) ফেরত দেবে, যেমন 0.2 — তালিকা বা লেখা নয়।",
        "en": "The function should return a number (a float) such as 0.2 — not a list or a string.",
    },
    "lesson05.check_bubble_ok": {"bn": "ঠিক হয়েছে! GPipe-এর বাবল সূত্র মিলেছে।", "en": "Correct! GPipe's bubble formula matches."},
    "lesson05.check_idle_forgot_stages": {
        "bn": "মোট সময় ধরতে হবে K ধাপ × সময়কাল: অলস = 1 − (সব ধাপের কাজের সময়) ÷ (K × span)। তুমি K দিয়ে গুণ করোনি।",
        "en": "The total is K stages × the span: idle = 1 − (busy time of all stages) ÷ (K × span). You left out K.",
    },
    "lesson05.check_idle_busy": {
        "bn": "তুমি ব্যস্ত ভাগ হিসাব করেছ; অলস ভাগ = 1 − ব্যস্ত ভাগ।",
        "en": "You computed the busy share; the idle share is 1 − busy share.",
    },
    "lesson05.check_idle_wrong": {
        "bn": "অলস ভাগ পাওয়া গেল {got:.4f}, হওয়া উচিত {want:.4f}। span = শেষ কাজের শেষ − প্রথম কাজের শুরু।",
        "en": "Idle share got {got:.4f}, expected {want:.4f}. span = end of the last event − start of the first.",
    },
    "lesson05.check_idle_ok": {
        "bn": "ঠিক হয়েছে! আসল টাইমলাইনে মাপা অলস ভাগ {measured:.0%}, সূত্র বলে {formula:.0%}।",
        "en": "Correct! The measured timeline is idle {measured:.0%}; the formula says {formula:.0%}.",
    },
    "lesson05.check_avg_not_averaged": {
        "bn": "গ্রেডিয়েন্ট যোগ হয়েছে কিন্তু গড় হয়নি: all_reduce যোগফল দেয়, তারপর world_size ({world}) দিয়ে ভাগ করো। "
              "না করলে শেখার হার কার্যত {world} গুণ হয়ে যায়।",
        "en": "The gradients were summed but not averaged: all_reduce gives the sum, then divide by world_size ({world}). "
              "Otherwise the learning rate is effectively {world}× larger.",
    },
    "lesson05.check_avg_not_synced": {
        "bn": "দুই প্রসেসের গ্রেডিয়েন্ট আলাদা রয়ে গেছে: প্রতিটি p.grad-এর উপর dist.all_reduce ডাকতে হবে।",
        "en": "The two processes still have different gradients: call dist.all_reduce on every p.grad.",
    },
    "lesson05.check_avg_wrong": {
        "bn": "দুই প্রসেসে গ্রেডিয়েন্ট এক, কিন্তু গড়ের সমান নয়। all_reduce-এর পর ঠিক একবার world_size দিয়ে ভাগ করো।",
        "en": "The gradients agree but are not the mean. After all_reduce divide by world_size exactly once.",
    },
    "lesson05.check_ring_used_collective": {
        "bn": "তোমার scatter_reduce torch.distributed-এর {name} ডেকেছে: এই কাজে রিং নিজে লিখতে হবে — টুকরোগুলো শুধু exchange(send, like) দিয়ে ডানে পাঠাও আর বাঁ থেকে নাও।",
        "en": "Your scatter_reduce called torch.distributed's {name}: this task is to write the ring yourself — move the chunks only with exchange(send, like), to the right and from the left.",
    },
    "lesson05.check_bubble_integer_division": {
        "bn": "K={k}, M={m}-এ ফল 0 এসেছে, চাই {want:.4f}: // পূর্ণসংখ্যার ভাগ, ভগ্নাংশ কেটে ফেলে। অলস ভাগ একটি ভগ্নাংশ: / দিয়ে ভাগ করো (বা fractions.Fraction)।",
        "en": "K={k}, M={m} gave 0, expected {want:.4f}: // is integer division and drops the fraction. The idle share is a fraction: divide with / (or use fractions.Fraction).",
    },
    "lesson05.check_avg_no_all_reduce": {
        "bn": "গড় ঠিক এসেছে, কিন্তু dist.all_reduce একবারও ডাকা হয়নি (ডাকা হয়েছে: {used}) — এই কাজ শেখায় DDP যা করে: প্রতিটি p.grad-এ dist.all_reduce, তারপর world_size দিয়ে ভাগ।",
        "en": "The mean is right, but dist.all_reduce was never called (called: {used}) — this task teaches what DDP does: dist.all_reduce on every p.grad, then divide by world_size.",
    },
    "lesson05.check_avg_frozen": {
        "bn": "একটি প্যারামিটার জমানো (frozen, requires_grad=False): তার p.grad হলো None, আর তোমার কোড সেখানে ভেঙে গেছে ({error})। "
              "None গ্রেডিয়েন্ট বাদ দাও: if p.grad is not None: ...",
        "en": "One parameter is frozen (requires_grad=False): its p.grad is None, and your code broke there ({error}). "
              "Skip None gradients: if p.grad is not None: ...",
    },
    "lesson05.check_avg_frozen_set": {
        "bn": "জমানো (frozen) প্যারামিটারের p.grad ছিল None, তোমার কোড সেখানে একটি টেনসর বসিয়েছে। None গ্রেডিয়েন্ট যেমন আছে তেমন রাখো (অপটিমাইজার তখন সেটি ছুঁয়ে দেখে না)।",
        "en": "The frozen parameter's p.grad was None and your code put a tensor there. Leave None gradients as they are (the optimizer then skips them).",
    },
    "lesson05.check_avg_not_reduced": {
        "bn": "গড় ঠিক, আর dist.all_reduce ডাকা হয়েছে — কিন্তু p.grad-এর মান সেই all_reduce থেকে আসেনি: all_reduce যে টেনসর যোগ করেছে তাতে এই র‍্যাঙ্কের নিজের "
              "গ্রেডিয়েন্ট ছিল না (বা ফলটি p.grad-এ যায়নি)। all_reduce করো p.grad-কেই (বা সব গ্রেডিয়েন্ট রাখা একটি বাফারকে), তারপর world_size দিয়ে ভাগ।",
        "en": "The mean is right and dist.all_reduce was called — but p.grad's values did not come from that all_reduce: the tensor it reduced did not "
              "hold this rank's own gradient (or its result never reached p.grad). All-reduce p.grad itself (or one buffer holding all gradients), then divide by world_size.",
    },
    "lesson05.check_avg_ok": {
        "bn": "ঠিক হয়েছে! আসল প্রসেসে (প্রসেসের সংখ্যা: {worlds}) প্রত্যেকের p.grad এখন সবার গ্রেডিয়েন্টের গড়, যা dist.all_reduce নিজের গ্রেডিয়েন্ট থেকে বানিয়েছে; ওজন অক্ষত, জমানো প্যারামিটারের grad None-ই আছে।",
        "en": "Correct! In real processes (process counts: {worlds}) every rank's p.grad is now the mean of all gradients, made by dist.all_reduce from its own gradient; weights untouched, the frozen parameter's grad still None.",
    },
    "lesson05.check_repeat_differs": {
        "bn": "একই ইনপুট অন্যভাবে দিলে (অন্য ক্রমে, অন্য সময়ে শুরু হওয়া ঘড়িতে, বা আবার ডাকলে) তোমার ফল বদলে গেছে: {got:.4f} বনাম {want:.4f}। ফলটি শুধু ইনপুটের মান থেকে হিসাব করো, তালিকার ক্রম বা আগের ডাকা থেকে নয়।",
        "en": "The same input given another way (another order, a clock that starts elsewhere, or called again) changed your result: {got:.4f} vs {want:.4f}. Compute it from the input's values only, not from the list's order or an earlier call.",
    },
    "lesson05.check_ddp_forbidden": {
        "bn": "এই অনুশীলনে লাইব্রেরির উত্তর {name} ডাকা যাবে না — লুপটি নিজে লেখাই কাজ।",
        "en": "This exercise does not allow the library's answer {name} — writing the loop yourself is the task.",
    },
    "lesson05.check_ddp_ok": {
        "bn": "ঠিক হয়েছে! আসল প্রসেসে (প্রসেসের সংখ্যা: {worlds}): ডেটা ভাগ হয়েছে, প্রতি ইপকে নতুন ক্রম, সব র‍্যাঙ্কের ওজন এক ও রেফারেন্সের সমান, আর শুধু rank 0 প্রশিক্ষিত ওজন (\"module.\" ছাড়া) সেভ করেছে।",
        "en": "Correct! In real processes (process counts: {worlds}): the data is split, each epoch has a new order, all ranks hold the reference's weights, and only rank 0 saved the trained weights (without \"module.\").",
    },
    "lesson05.check_ddp_set_epoch_not_called": {
        "bn": "sampler.set_epoch একবারও ডাকা হয়নি: প্রতিটি ইপকের শুরুতে sampler.set_epoch(epoch) ডাকো, যাতে সব র‍্যাঙ্ক একই নতুন ক্রম পায়।",
        "en": "sampler.set_epoch was never called: call sampler.set_epoch(epoch) at the start of every epoch, so that all ranks get the same new order.",
    },
    "lesson05.check_ddp_set_epoch_same": {
        "bn": "{epochs}টি ইপকে set_epoch ডাকা হয়েছে {calls} বার, মান: {values} — প্রতিটি ইপকে সেই ইপকের নম্বর দাও (set_epoch(epoch)), একই সংখ্যা বারবার দিলে ক্রম বদলায় না।",
        "en": "set_epoch was called {calls} times in {epochs} epochs, with: {values} — give each epoch its own number (set_epoch(epoch)); the same number every time never changes the order.",
    },
    "lesson05.check_ddp_shuffle_off": {
        "bn": "set_epoch ঠিকই প্রতিটি ইপকে ডাকছ, কিন্তু DistributedSampler-এ shuffle=False: তখন set_epoch কিছুই বদলায় না, প্রতিটি ইপকে একই ক্রম। sampler-কে shuffle=True (আর seed=0) দাও।",
        "en": "You call set_epoch every epoch, but the DistributedSampler has shuffle=False: then set_epoch changes nothing and every epoch has the same order. Give the sampler shuffle=True (and seed=0).",
    },
    "lesson05.check_ddp_no_set_epoch": {
        "bn": "প্রতিটি ইপকে একই ক্রমে নমুনা এসেছে: প্রতি ইপকের শুরুতে sampler.set_epoch(epoch) ডাকো, নইলে এলোমেলো ক্রম বদলায় না।",
        "en": "Every epoch came in the same order: call sampler.set_epoch(epoch) at the start of each epoch, or the shuffle never changes.",
    },
    "lesson05.check_ddp_not_synced": {
        "bn": "প্রশিক্ষণের পর দুই র‍্যাঙ্কের ওজন আলাদা: গ্রেডিয়েন্ট গড় হচ্ছে না। মডেলকে DDP(model) দিয়ে মোড়াও আর ফরওয়ার্ড সেই মোড়ানো মডেল দিয়ে চালাও।",
        "en": "After training the two ranks have different weights: gradients are not averaged. Wrap the model in DDP(model) and run the forward through the wrapper.",
    },
    "lesson05.check_ddp_every_rank_saves": {
        "bn": "র‍্যাঙ্ক {ranks} চেকপয়েন্ট লিখেছে: সবার ওজন এক, তাই শুধু rank 0 লিখবে (if rank == 0:), নইলে একই ফাইলে একাধিক প্রসেস একসাথে লেখে।",
        "en": "Ranks {ranks} wrote the checkpoint: all weights are equal, so only rank 0 writes (if rank == 0:), or several processes race on one file.",
    },
    "lesson05.check_ddp_no_checkpoint": {
        "bn": "কোনো চেকপয়েন্ট লেখা হয়নি: rank 0 যেন শেষে torch.save(model.state_dict(), checkpoint_path) করে।",
        "en": "No checkpoint was written: rank 0 should call torch.save(model.state_dict(), checkpoint_path) at the end.",
    },
    "lesson05.check_ddp_wrong": {
        "bn": "ওজন দুই র‍্যাঙ্কে এক, কিন্তু রেফারেন্স প্রশিক্ষণের সাথে মেলেনি। optimizer.zero_grad(), F.cross_entropy আর দেওয়া batch_size ব্যবহার করেছ তো?",
        "en": "The weights agree across ranks but not with the reference run. Did you use optimizer.zero_grad(), F.cross_entropy and the given batch_size?",
    },
}
