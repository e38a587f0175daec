"""Messages of the noise verdict (fastrain_lib.measure.noise), shown beside measurements."""

MESSAGES = {
    "noise.ratio_busy": {
        "bn": "✓ ব্যস্ত মেশিনে পালা করে মাপা (অন্য কাজ গড়ে {busy_cores:.1f}টি কোর নিয়েছিল; {rounds}টি রাউন্ডের প্রতিটিতে প্রতিটি রকম একবার, রাউন্ডের অনুপাতগুলোর ফারাক {round_spread:.0%}): "
              "একই রাউন্ডে {top} ÷ {bottom} = {ratio:.2f} (মধ্যমা) — {outcome}। শুধু এই অনুপাতটি পড়ো: মিলিসেকেন্ডগুলো অন্য কাজের ভারে বদলেছে।",
        "en": "✓ Measured in interleaved rounds on a busy machine (other work took {busy_cores:.1f} cores on average; each of {rounds} rounds timed every way once, the rounds' ratios {round_spread:.0%} apart): "
              "within a round, {top} ÷ {bottom} = {ratio:.2f} (median) — {outcome}. Read only this ratio: the milliseconds moved with the other load.",
    },
    "noise.busy_top_faster": {"bn": "প্রথমটি কম সময় নিয়েছে", "en": "the first took less time"},
    "noise.busy_bottom_faster": {"bn": "দ্বিতীয়টি কম সময় নিয়েছে", "en": "the second took less time"},
    "noise.busy_even": {"bn": "রাউন্ডের ফারাকের মধ্যে কেউ দ্রুত নয়", "en": "within the rounds' spread, neither was faster"},
    "noise.quiet": {
        "bn": "✓ শান্ত মাপ: মাপার সময় অন্য প্রোগ্রাম গড়ে {other:.1f}টি কোর ব্যবহার করেছে ({cores}টির মধ্যে), "
              "মাপের থ্রেড {threads}টি, পুনরাবৃত্তিগুলোর পার্থক্য {spread:.0%}।",
        "en": "✓ Quiet measurement: other programs used {other:.1f} of {cores} cores on average while it ran, "
              "the measurement used {threads} threads, and the repeats differ by {spread:.0%}.",
    },
    "noise.noisy": {
        "bn": "⚠️ এই মাপ গোলমেলে (noisy), সংখ্যাটা বিশ্বাস কোরো না:",
        "en": "⚠️ This measurement is noisy; do not trust the number:",
    },
    "noise.reason.load": {
        "bn": "মাপার সময় অন্য প্রোগ্রাম গড়ে {other:.1f}টি কোর ব্যস্ত রেখেছিল, অথচ {threads}টি থ্রেডের এই মাপের জন্য "
              "{cores}টি কোরের মধ্যে খালি ছিল মাত্র {free:.1f}টি — সময়ের একটা অংশ গেছে কোর খালি হওয়ার অপেক্ষায়, তাই সময় বেশি এসেছে।",
        "en": "other programs kept {other:.1f} cores busy on average while it ran, but this measurement's {threads} "
              "thread(s) had only {free:.1f} of {cores} cores free — part of the time went into waiting for a free core, so the time came out too long.",
    },
    "noise.reason.steal": {
        "bn": "ভার্চুয়াল মেশিনের হোস্ট মাপার সময় গড়ে {steal:.1f}টি কোর অন্য কাজে নিয়ে গিয়েছিল (steal time), "
              "{threads}টি থ্রেডের জন্য {cores}টির মধ্যে খালি ছিল মাত্র {free:.1f}টি কোর।",
        "en": "the virtual machine's host took {steal:.1f} cores away on average while it ran (steal time), leaving "
              "only {free:.1f} of {cores} cores free for {threads} threads.",
    },
    "noise.reason.threads": {
        "bn": "মাপটি নিজেই {threads}টি থ্রেড চেয়েছে, কিন্তু মেশিনে কোর আছে {cores}টি।",
        "en": "the measurement itself asked for {threads} threads on a machine with {cores} cores.",
    },
    "noise.reason.spread": {
        "bn": "একই কাজ {repeats} বার মাপলে ফলগুলো একে অপরের থেকে {spread:.0%} আলাদা (IQR ÷ মধ্যমা; {limit:.0%}-এর বেশি হলে মধ্যমা স্থির নয়)।",
        "en": "the {repeats} repeats of the same work differ by {spread:.0%} (IQR ÷ median; above {limit:.0%} the median is not stable).",
    },
    "noise.reason.spread_blocks": {
        "bn": "পরপর {block_steps}টি ধাপের {repeats}টি দলের গড় সময় একে অপরের থেকে {spread:.0%} আলাদা (IQR ÷ মধ্যমা; {limit:.0%}-এর বেশি হলে মধ্যমা স্থির নয়)।",
        "en": "the mean times of {repeats} groups of {block_steps} consecutive steps differ by {spread:.0%} (IQR ÷ median; above {limit:.0%} the median is not stable).",
    },
    "noise.reason.rounds": {
        "bn": "পালা করে মাপা {rounds}টি রাউন্ডের মধ্যমাগুলো একে অপরের থেকে {round_spread:.0%} আলাদা ({limit:.0%}-এর বেশি হলে সংখ্যাটা স্থির নয়)।",
        "en": "the medians of the {rounds} interleaved rounds differ by {round_spread:.0%} (above {limit:.0%} the number is not stable).",
    },
    "noise.reason.recompile": {
        "bn": "মাপার মাঝখানে torch.compile আবার {recompiles} বার কম্পাইল করেছে, তাই কম্পাইলের সময় ধাপের সময়ে ঢুকে গেছে।",
        "en": "torch.compile compiled again {recompiles} times while the steps were timed, so compile time leaked into the step time.",
    },
    "noise.todo": {
        "bn": "যা করবে: অন্য প্রোগ্রাম (ব্রাউজারের ভিডিও, আরেকটি নোটবুক, কম্পাইল) বন্ধ করো, খালি কোরের চেয়ে বেশি থ্রেড রেখো না "
              "(torch.set_num_threads({suggest}) বা প্যানেলের থ্রেড নিয়ন্ত্রণ), তারপর আবার চালাও।",
        "en": "What to do: close other programs (a browser video, another notebook, a compile), use no more threads than "
              "free cores (torch.set_num_threads({suggest}) or the panel's threads control), then run again.",
    },
    "noise.summary": {
        "bn": "{total}টি মাপের মধ্যে {noisy}টি গোলমেলে (সবচেয়ে খারাপ: {name})।",
        "en": "{noisy} of {total} measurements are noisy (worst: {name}).",
    },
    "noise.marked": {"bn": "দাগ কাটা = গোলমেলে মাপ", "en": "hatched = noisy measurement"},
    "noise.marked_point": {"bn": "লাল বৃত্ত = গোলমেলে মাপ", "en": "red ring = noisy measurement"},
    "noise.figure_warning": {
        "bn": "⚠ {noisy}/{total}টি মাপ গোলমেলে: মেশিন ব্যস্ত ছিল",
        "en": "⚠ {noisy}/{total} measurements noisy: the machine was busy",
    },
    "noise.threads_auto": {"bn": "স্বয়ংক্রিয়", "en": "auto"},
    "noise.verdict_col": {"bn": "মাপের অবস্থা", "en": "noise verdict"},
    "noise.quiet_word": {"bn": "শান্ত", "en": "quiet"},
    "noise.noisy_word": {"bn": "গোলমেলে", "en": "noisy"},
    "noise.dropped": {
        "bn": "{count}টি গোলমেলে মাপ (ব্যস্ত মেশিনে নেওয়া) তুলনা আর ক্রম থেকে বাদ দেওয়া হয়েছে।",
        "en": "{count} noisy measurements (taken on a busy machine) were left out of comparisons and rankings.",
    },
    "noise.run_noisy": {
        "bn": "এই রানের {total}টি মাপের মধ্যে {noisy}টি গোলমেলে (মেশিন ব্যস্ত ছিল বা পুনরাবৃত্তি মেলেনি)।",
        "en": "{noisy} of this run's {total} measurements are noisy (the machine was busy or the repeats disagreed).",
    },
    "noise.refused": {
        "bn": "✗ {target}-এ লেখা হলো না: রানটি গোলমেলে, আর রেফারেন্সে শুধু শান্ত রান থাকে। ফল রাখা হয়েছে {path}-এ "
              "(নামে -noisy চিহ্ন)। অন্য প্রোগ্রাম বন্ধ করে আবার চালাও।",
        "en": "✗ Not written to {target}: the run is noisy, and reference/ holds only quiet runs. The results are in "
              "{path} (marked -noisy in the name). Close other programs and run again.",
    },
    # the exercise check of lesson 01's "why timings lie" (fastrain_lib.lessons.l01_gpu_vs_cpu.noise_checks)
    "noise.check.correct": {
        "bn": "ঠিক! প্রতি রাউন্ডের অনুপাত নিয়ে তাদের মধ্যমা: ধীর রাউন্ড দুই দিককেই সমান ধীর করে, আর হঠাৎ লোড লাগা একটি রাউন্ড ফল বদলায় না।",
        "en": "Correct! The median of the per-round ratios: a slow round slows both sides alike, and one round hit by a burst of load does not change the answer.",
    },
    "noise.check.changed_input": {
        "bn": "তোমার ফাংশন দেওয়া তালিকাগুলো বদলে দিয়েছে (যেমন .sort())। সাজালে রাউন্ডের জোড়া ভেঙে যায়: baseline_s[i] আর variant_s[i] একই রাউন্ডের, তাদের একসাথেই রাখো।",
        "en": "Your function changed the lists it was given (e.g. .sort()). Sorting breaks the rounds' pairs: baseline_s[i] and variant_s[i] belong to the same round; keep them together.",
    },
    "noise.check.not_number": {
        "bn": "ফাংশনটি একটি সংখ্যা ফেরত দেওয়ার কথা (কত গুণ দ্রুত), কিন্তু দিয়েছে: {kind}।",
        "en": "The function should return one number (how many times faster), but returned: {kind}.",
    },
    "noise.check.inverted": {
        "bn": "অনুপাত উল্টো হয়েছে ({got:.3g}, ঠিক উত্তর {expected:.3g})। গতিবৃদ্ধি = ভিত্তির সময় ÷ নতুন সময়: baseline_s[i] / variant_s[i]।",
        "en": "The ratio is upside down ({got:.3g}, the right answer is {expected:.3g}). Speed-up = baseline time ÷ new time: baseline_s[i] / variant_s[i].",
    },
    "noise.check.unpaired_medians": {
        "bn": "তুমি দুই তালিকার মধ্যমা আলাদা করে নিয়ে ভাগ করেছ ({got:.3g}, ঠিক {expected:.3g})। তাতে রাউন্ডের জোড়া হারায়: যে রাউন্ডে মেশিন ধীর ছিল, সেখানে দুটোই ধীর। আগে প্রতি রাউন্ডে ভাগ করো, তারপর মধ্যমা নাও।",
        "en": "You took each list's median separately and divided ({got:.3g}, right: {expected:.3g}). That loses the rounds' pairs: in a round where the machine was slow, both were slow. Divide within each round first, then take the median.",
    },
    "noise.check.ratio_of_means": {
        "bn": "গড় সময়ের অনুপাত নিয়েছ ({got:.3g}, ঠিক {expected:.3g})। লোড লাগা একটি রাউন্ড গড়কে টেনে নেয়। প্রতি রাউন্ডের অনুপাত নিয়ে তার মধ্যমা নাও।",
        "en": "You took the ratio of the mean times ({got:.3g}, right: {expected:.3g}). One round hit by load drags a mean along. Take each round's ratio, then their median.",
    },
    "noise.check.mean_of_ratios": {
        "bn": "রাউন্ডের অনুপাতগুলো ঠিকই নিয়েছ, কিন্তু তাদের গড় ({got:.3g}); একটি গোলমেলে রাউন্ড গড় বদলে দেয়। গড়ের বদলে মধ্যমা নাও (ঠিক উত্তর {expected:.3g})।",
        "en": "You took the per-round ratios, but then their mean ({got:.3g}); one noisy round moves a mean. Take the median instead (right answer {expected:.3g}).",
    },
    "noise.check.best_of": {
        "bn": "দুই দিকের সবচেয়ে কম সময় নিয়ে ভাগ করেছ ({got:.3g}, ঠিক {expected:.3g})। দুটো সর্বনিম্ন আলাদা রাউন্ডের হতে পারে, ভিন্ন অবস্থায় মাপা। একই রাউন্ডের দুটি সময় ভাগ করো, তারপর মধ্যমা।",
        "en": "You divided the two sides' best times ({got:.3g}, right: {expected:.3g}). The two minima may come from different rounds, measured under different conditions. Divide the two times of the same round, then take the median.",
    },
    "noise.check.one_round": {
        "bn": "শুধু একটি রাউন্ড দেখেছ ({got:.3g}, ঠিক {expected:.3g})। সব {rounds}টি রাউন্ডের অনুপাত নিয়ে মধ্যমা নাও।",
        "en": "You looked at one round only ({got:.3g}, right: {expected:.3g}). Take the ratio in all {rounds} rounds, then their median.",
    },
    "noise.check.difference": {
        "bn": "সময়ের পার্থক্য নিয়েছ ({got:.3g}), অনুপাত নয়। \"কত গুণ দ্রুত\" = baseline_s[i] / variant_s[i]; তারপর মধ্যমা (ঠিক উত্তর {expected:.3g})।",
        "en": "You took the difference of the times ({got:.3g}), not the ratio. \"How many times faster\" = baseline_s[i] / variant_s[i], then the median (right answer {expected:.3g}).",
    },
    "noise.check.wrong_value": {
        "bn": "ফল মেলেনি: baseline_s={baseline}, variant_s={variant} দিলে ঠিক উত্তর {expected:.4g}, তোমার ফাংশন দিয়েছে {got:.4g}। প্রতি রাউন্ডে baseline_s[i] / variant_s[i], তারপর এই অনুপাতগুলোর মধ্যমা।",
        "en": "Not right: for baseline_s={baseline}, variant_s={variant} the answer is {expected:.4g}, your function returned {got:.4g}. In each round baseline_s[i] / variant_s[i], then the median of those ratios.",
    },
    # lesson 01's verdict on the same matmul beside a background load
    "noise.verdict_collapse": {
        "bn": "লোডের পাশে {threads}টি থ্রেডে একই গুণ {all_phrase} হয়েছে, কিন্তু 1টি থ্রেডে {one_phrase}: "
              "সব কোর চাওয়া থ্রেড দল প্রতিবার থামিয়ে রাখা থ্রেডটির জন্য অপেক্ষা করেছে। গোলমাল-রায়: লোডের সময় {busy_verdict}, লোড ছাড়া {quiet_verdict}।",
        "en": "Beside the load the same matmul became {all_phrase} with {threads} threads, but {one_phrase} "
              "with 1 thread: the thread team that wanted every core waited each time for its descheduled thread. "
              "Noise verdict: {busy_verdict} under load, {quiet_verdict} without it.",
    },
    "noise.verdict_mild": {
        "bn": "এবার লোড তেমন ক্ষতি করেনি: {threads}টি থ্রেডে {all_phrase}, 1টি থ্রেডে {one_phrase} — "
              "সম্ভবত মেশিনে আরও খালি কোর ছিল, বা মাপটি খুব ছোট। গোলমাল-রায়: লোডের সময় {busy_verdict}, লোড ছাড়া {quiet_verdict}।",
        "en": "This time the load did little harm: {all_phrase} with {threads} threads, {one_phrase} with 1 — "
              "probably there were more free cores, or the measurement is very small. Noise verdict: {busy_verdict} under "
              "load, {quiet_verdict} without it.",
    },
    "noise.verdict_one_core": {
        "bn": "এই মেশিনে থ্রেড মাত্র 1টি, তাই থ্রেড দলের অপেক্ষা এখানে দেখা যায় না; লোডের পাশে গুণ {one_phrase} হয়েছে "
              "(একটি কোর দুজনে ভাগ করলে যা হয়)। গোলমাল-রায়: লোডের সময় {busy_verdict}, লোড ছাড়া {quiet_verdict}।",
        "en": "This machine runs 1 thread, so the thread team's waiting cannot show here; beside the load the matmul became "
              "{one_phrase} (what sharing one core does). Noise verdict: {busy_verdict} under load, {quiet_verdict} without it.",
    },
    "noise.verdict_busy_already": {
        "bn": "আমাদের লোড চালুর আগেই মেশিন ব্যস্ত ছিল (লোড ছাড়া মাপের রায়ও {quiet_verdict}): তখনই {threads}টি থ্রেডের তুলনায় "
              "1টি থ্রেড ছিল {one_vs_all_phrase}। তাই এখানে 'শান্ত বনাম লোড' তুলনা হয় না — অন্য প্রোগ্রাম বন্ধ করে আবার চালাও।",
        "en": "The machine was busy before our load started (the no-load measurement is {quiet_verdict} too): already then 1 "
              "thread compared with {threads} threads was {one_vs_all_phrase}. So 'quiet vs load' cannot be compared here — "
              "close other programs and run again.",
    },
    # a speed ratio in words (noise.speed_words): below 1 it is said the other way round
    "noise.ratio_faster": {"bn": "{n:.1f} গুণ দ্রুত", "en": "{n:.1f}× faster"},
    "noise.ratio_slower": {"bn": "{n:.1f} গুণ ধীর", "en": "{n:.1f}× slower"},
    "noise.ratio_same": {"bn": "প্রায় একই গতির", "en": "about as fast"},
}


# Messages of fastrain_lib.measure.regimes (the three regimes of a step), used by lesson 01 and later lessons.
MESSAGES.update({
    "regimes.overhead": {"bn": "ওভারহেড-সীমিত (overhead-bound)", "en": "overhead-bound"},
    "regimes.memory": {"bn": "মেমরি-সীমিত (memory-bound)", "en": "memory-bound"},
    "regimes.compute": {"bn": "গণনা-সীমিত (compute-bound)", "en": "compute-bound"},
    "regimes.overhead_short": {"bn": "ওভারহেড", "en": "overhead"},
    "regimes.memory_short": {"bn": "মেমরি", "en": "memory"},
    "regimes.model_line": {
        "bn": "মডেল: ওভারহেড + বাইট ÷ ব্যান্ডউইথ",
        "en": "model: overhead + bytes ÷ bandwidth",
    },
    "regimes.numel_axis": {"bn": "টেনসরের উপাদান সংখ্যা", "en": "tensor elements"},
    "regimes.us_axis": {"bn": "প্রতি কলে সময় (মাইক্রোসেকেন্ড)", "en": "time per call (µs)"},
    "regimes.sweep_title": {
        "bn": "একটি এলিমেন্টওয়াইজ অপারেশন, আকার বাড়িয়ে\n({device}, এই মেশিনে মাপা)",
        "en": "one elementwise op of growing size\n({device}, measured on this machine)",
    },
    "regimes.share_axis": {"bn": "মডেলের হিসাবে সময়ের ভাগ", "en": "share of the time (model)"},
    "regimes.shares_title": {
        "bn": "তিনটি উদাহরণ: সময় কোথায় যায় (মডেল)\nওপরে: মেপে পাওয়া দশা, কাজ দ্বিগুণে সময় কত গুণ",
        "en": "three examples: where the time goes (model)\nabove: observed regime, time ratio for twice the work",
    },
    "regimes.verdict_example": {
        "bn": "{name}: প্রতি কলে {us:.1f} µs; কাজ দ্বিগুণ করলে সময় {growth:.2f} গুণ; ব্যান্ডউইথের {bw:.0%} আর "
              "শীর্ষ গতির {peak:.0%} পেয়েছে। মেপে পাওয়া দশা: {observed}; মডেলের অনুমান: {predicted}।",
        "en": "{name}: {us:.1f} µs per call; twice the work took {growth:.2f}× the time; it reached {bw:.0%} of the "
              "bandwidth and {peak:.0%} of the peak. Observed regime: {observed}; the model predicts: {predicted}.",
    },
    "regimes.above_roof": {
        "bn": "⚠ এটি পাশেই মাপা ব্যান্ডউইথের চেয়েও বেশি GB/s পেয়েছে ({gbs:.1f} বনাম {roof:.1f} GB/s, {share:.0%})। নিজের ছাদ ছাড়ানো যায় "
              "না, তাই এটা মাপের সমস্যা (গোলমাল বা ক্যাশে থেকে যাওয়া ডেটা), কোনো দশার প্রমাণ নয়: এর দশা বলা হচ্ছে না। শান্ত মেশিনে আবার চালাও।",
        "en": "⚠ It moved more GB/s than the bandwidth measured next to it ({gbs:.1f} vs {roof:.1f} GB/s, {share:.0%}). Nothing beats "
              "its own ceiling, so this is a measurement problem (noise, or data left in a cache), not evidence of a regime: no "
              "regime is given for it. Run it again on a quiet machine.",
    },
    "regimes.above_peak": {
        "bn": "⚠ এটি পাশেই মাপা শীর্ষ গতির চেয়েও বেশি GFLOP/s পেয়েছে ({gflops:.1f} বনাম {peak:.1f} GFLOP/s, {share:.0%})। নিজের ছাদ "
              "ছাড়ানো যায় না, তাই এটা মাপের সমস্যা (দুই মাপের একটির সময় মেশিন ব্যস্ত ছিল): এর দশা বলা হচ্ছে না। শান্ত মেশিনে আবার চালাও।",
        "en": "⚠ It reached more GFLOP/s than the peak measured next to it ({gflops:.1f} vs {peak:.1f} GFLOP/s, {share:.0%}). Nothing "
              "beats its own ceiling, so this is a measurement problem (the machine was busy during one of the two): no regime "
              "is given for it. Run it again on a quiet machine.",
    },
    "regimes.name_tiny": {"bn": "ছোট অপারেশন ×{ops}", "en": "tiny ops ×{ops}"},
    "regimes.name_chain": {"bn": "এলিমেন্টওয়াইজ ×{ops}", "en": "elementwise ×{ops}"},
    "regimes.name_matmul": {"bn": "ম্যাট্রিক্স গুণ {n}", "en": "matmul {n}"},
    "regimes.as_intended": {
        "bn": "এটি ঠিক সেই দশা দেখাচ্ছে, যার উদাহরণ হিসেবে একে বাছা হয়েছিল ({intended})।",
        "en": "It shows exactly the regime it was chosen to show ({intended}).",
    },
    "regimes.not_as_intended": {
        "bn": "এই মেশিনে এটি {intended} উদাহরণ হয়নি, হয়েছে {observed}: সীমাগুলো মেশিন অনুযায়ী বদলায় "
              "(আকার বাড়ালে বা কমালে দশা বদলায়), আর মেশিন ব্যস্ত থাকলে মাপও নড়ে।",
        "en": "On this machine it is not {intended} but {observed}: the borders depend on the machine "
              "(a bigger or smaller size moves it), and a busy machine moves the timings too.",
    },
    "hardware.gpu_unsupported": {
        "bn": "এই GPU ({gpu}, compute capability {cc}) এখানে ইনস্টল করা torch {torch} চালাতে পারে না: এই torch শুধু {built}-এর জন্য তৈরি, তাই প্রথম kernel-এই ভুল হতো। তাই পাঠের সব কাজ CPU-তে চলবে। যা করতে পারো: (1) এই GPU সমর্থন করে এমন পুরোনো torch ইনস্টল করো (যেমন V100/P100-এর জন্য CUDA 12.x-এর torch), (2) Google Colab-এর T4-এ পাঠটি খোলো, অথবা (3) CPU-তেই চালিয়ে যাও — প্রতিটি পাঠ CPU-তেও চলে।",
        "en": "This GPU ({gpu}, compute capability {cc}) cannot run the installed torch {torch}: this torch was built for {built} only, so the first kernel would fail. Everything in the lessons runs on the CPU instead. What you can do: (1) install an older torch that supports this GPU (for a V100/P100, a torch built for CUDA 12.x), (2) open the lesson on Google Colab's T4, or (3) carry on with the CPU — every lesson runs on a CPU too.",
    },
    "hardware.no_compiler": {
        "bn": "torch.compile এই মেশিনে চলবে না: Inductor একটি C++ কম্পাইলার খোঁজে ({compiler}), আর সেটি এখানে নেই। তাই কম্পাইল করা রূপগুলো বাদ দিয়ে পাঠ শুধু সাধারণ (eager) রূপ মাপছে; বাকি সব চলবে। কম্পাইলের অংশ দেখতে চাইলে: {install}, তারপর কার্নেল রিস্টার্ট করো। অথবা পাঠটি Google Colab-এ খোলো।",
        "en": "torch.compile cannot run on this machine: Inductor looks for a C++ compiler ({compiler}) and there is none here. So the lesson leaves the compiled variants out and measures the plain (eager) ones; everything else runs. To see the compile parts: {install}, then restart the kernel. Or open the lesson on Google Colab.",
    },
    "hardware.no_triton": {
        "bn": "Triton এই মেশিনে নেই{where}, তাই এই সেলের Triton kernel চালানো হলো না: কোডটি পড়ো, ওপরের সেলে সেটা লেখা আছে। চালাতে চাইলে: Linux-এ `pip install triton` (CUDA-সহ PyTorch-এর সাথে সাধারণত আসে), অথবা পাঠটি Google Colab-এ খোলো।",
        "en": "Triton is not installed here{where}, so this cell's Triton kernel was not run: read its code in the cell above. To run it: on Linux `pip install triton` (it usually comes with CUDA builds of PyTorch), or open the lesson on Google Colab.",
    },
    "hardware.no_rpc": {
        "bn": "এই মেশিনের torch-এ torch.distributed.rpc নেই (Windows-এর torch RPC ছাড়াই তৈরি), তাই আসল প্যারামিটার সার্ভার চালানো হলো না: তার কোড ওপরের সেলে পড়ো, আর অ্যাসিঙ্ক্রোনাস SGD-র একই প্রশ্ন এই পাঠের সিমুলেটরে দেখো। চালাতে চাইলে পাঠটি Linux বা macOS-এ, অথবা Google Colab-এ খোলো।",
        "en": "The torch on this machine has no torch.distributed.rpc (Windows builds of torch come without RPC), so the real parameter server was not run: read its code in the cell above, and see the same question of asynchronous SGD in this lesson's simulator. To run it, open the lesson on Linux or macOS, or on Google Colab.",
    },
    "hardware.triton_where_windows": {"bn": " (Windows-এ PyPI-র torch-এর সঙ্গে Triton আসে না)", "en": " (PyPI's torch does not bring it on Windows)"},
    "hardware.install_msvc": {"bn": "Microsoft-এর “Build Tools for Visual Studio” থেকে “Desktop development with C++” ইনস্টল করো, আর “Developer Command Prompt” থেকে কোর্স চালাও", "en": "install “Desktop development with C++” from Microsoft's “Build Tools for Visual Studio” and start the course from the “Developer Command Prompt”"},
    "hardware.install_gxx": {"bn": "g++ ইনস্টল করো (Debian/Ubuntu: sudo apt install build-essential; conda: conda install gxx)", "en": "install g++ (Debian/Ubuntu: sudo apt install build-essential; conda: conda install gxx)"},
    "hardware.install_xcode": {"bn": "টার্মিনালে xcode-select --install চালাও", "en": "run xcode-select --install in a terminal"},
})

# Said by this package's code (moved from fastrain_lib/core/messages.py).
MESSAGES.update({
    "hardware.item": {"bn": "বিষয়", "en": "item"},
    "hardware.value": {"bn": "মান", "en": "value"},
    "hardware.cpu": {"bn": "CPU", "en": "CPU"},
    "hardware.cores": {"bn": "কোর", "en": "cores"},
    "hardware.cpu_bf16": {"bn": "bf16 হার্ডওয়্যারে", "en": "bf16 in hardware"},
    "hardware.cpu_no_bf16": {"bn": "bf16 হার্ডওয়্যারে নেই", "en": "no bf16 in hardware"},
    "hardware.torch": {"bn": "PyTorch সংস্করণ", "en": "PyTorch version"},
    "hardware.cuda": {"bn": "CUDA সংস্করণ (PyTorch বিল্ড)", "en": "CUDA version (PyTorch build)"},
    "hardware.none": {"bn": "নেই", "en": "none"},
    "hardware.devices": {"bn": "ব্যবহারযোগ্য ডিভাইস", "en": "usable devices"},
    "hardware.colab": {"bn": "Google Colab-এ চলছে?", "en": "running in Google Colab?"},
    "hardware.gpu": {"bn": "GPU", "en": "GPU"},
    "hardware.no_gpu": {"bn": "এই মেশিনে কোনো CUDA GPU পাওয়া যায়নি — সব কাজ CPU-তে চলবে", "en": "no CUDA GPU found on this machine — everything runs on the CPU"},
    "hardware.gpu_memory": {"bn": "GPU মেমরি", "en": "GPU memory"},
    "hardware.cc": {"bn": "কম্পিউট ক্যাপাবিলিটি (compute capability)", "en": "compute capability"},
    "hardware.fp16_tc": {"bn": "fp16 টেনসর কোর আছে?", "en": "fp16 tensor cores?"},
    "hardware.bf16_fast": {"bn": "দ্রুত bf16 আছে?", "en": "fast bf16?"},
    "hardware.datasheet": {"bn": "ডেটাশিট", "en": "datasheet"},
    "hardware.peak_datasheet": {"bn": "ডেটাশিট শীর্ষ গতি: {name} ({source})", "en": "datasheet peak: {name} ({source})"},
    "hardware.peak_measured": {"bn": "এই মেশিনে মাপা শীর্ষ গতি ({dtype} matmul)", "en": "peak measured on this machine ({dtype} matmul)"},
    "hardware.peak_unknown": {
        "bn": "'{name}' GPU-টির ডেটাশিট আমাদের তালিকায় নেই, তাই MFU অজানা থাকল (ভুল সংখ্যা দেখানোর চেয়ে ভালো)",
        "en": "the GPU '{name}' is not in our datasheet table, so MFU stays unknown (better than a wrong number)",
    },
    "reference.unnamed": {"bn": "নাম-না-জানা মেশিন", "en": "unnamed machine"},
    # a lesson table's row from a reference/ run, beside the rows measured here: what it is, and which run
    "reference.row": {"bn": "{what} (রেফারেন্স: {run})", "en": "{what} (reference: {run})"},
    "hardware.mfu_unknown": {"bn": "অজানা", "en": "unknown"},
    "hardware.mfu_impossible": {
        "bn": "100%-এর বেশি — শীর্ষ গতি বা FLOP গণনায় ভুল, তাই দেখানো হলো না",
        "en": "above 100% — the peak or the FLOP count is wrong, so it is not shown",
    },
    "hardware.device_missing": {
        "bn": "'{device}' ডিভাইসটি এই মেশিনে নেই। ব্যবহার করা যাবে: {available}। GPU না থাকলে 'cpu' বেছে নাও, অথবা Colab-এ Runtime → Change runtime type → GPU দাও।",
        "en": "device '{device}' is not available here. Usable: {available}. Without a GPU pick 'cpu', or in Colab choose Runtime → Change runtime type → GPU.",
    },
    "launches.why_op_grew": {
        "bn": "কেন, torch.profiler দিয়ে এইমাত্র মাপা: {name}-এ সবচেয়ে বেশি বেড়েছে {op}-এর সময় — প্রতি ধাপে {before_ms:.2f} থেকে {after_ms:.2f} ms (সব অপারেটর মিলে {total_before_ms:.1f} থেকে {total_after_ms:.1f} ms)।",
        "en": "Why, measured just now with torch.profiler: with {name} the operator that grew most is {op} — {before_ms:.2f} to {after_ms:.2f} ms per step (all operators together {total_before_ms:.1f} to {total_after_ms:.1f} ms).",
    },
    "launches.not_reproduced": {
        "bn": "কেন, torch.profiler দিয়ে এইমাত্র মাপা: প্রোফাইলে {name}-এর অপারেটরগুলো ধীর হয়নি — সব অপারেটর মিলে {total_before_ms:.1f} থেকে {total_after_ms:.1f} ms প্রতি ধাপে। তাই ধীর হওয়ার কারণ অপারেটরগুলোর বাইরে (Python, অপেক্ষা), নয়তো মাপার সময় মেশিনে অন্য কাজ চলছিল: তুলনাটা আবার চালিয়ে দেখো।",
        "en": "Why, measured just now with torch.profiler: in the profile {name}'s operators did not get slower — all operators together {total_before_ms:.1f} to {total_after_ms:.1f} ms per step. So the slowdown is not inside the operators (Python, waiting), or other work disturbed the timing: run the comparison again.",
    },
    "launches.why_op_grew_mm_faster": {
        "bn": "কেন, torch.profiler দিয়ে এইমাত্র মাপা: {name}-এ ম্যাট্রিক্স গুণ আসলে দ্রুত হয়েছে ({mm_before_ms:.2f} থেকে {mm_after_ms:.2f} ms প্রতি ধাপে), কিন্তু {op}-এর সময় বেড়েছে {before_ms:.2f} থেকে {after_ms:.2f} ms — সব অপারেটর মিলে {total_before_ms:.1f} থেকে {total_after_ms:.1f} ms। লাভটা খেয়ে ফেলে এই একটি অপারেটরের ধীর {name} পথ।",
        "en": "Why, measured just now with torch.profiler: with {name} the matrix multiplies did get faster ({mm_before_ms:.2f} to {mm_after_ms:.2f} ms per step), but {op} grew from {before_ms:.2f} to {after_ms:.2f} ms — all operators together {total_before_ms:.1f} to {total_after_ms:.1f} ms. This one operator's slow {name} path eats the gain.",
    },
})

# Said by this package's code (moved from fastrain_lib/lessons/l01_gpu_vs_cpu/messages.py).
MESSAGES.update({
    "roofline.measured": {"bn": "এই মেশিনে মাপা: {device}", "en": "measured on this machine: {device}"},
    "roofline.datasheet": {"bn": "ডেটাশিট: {gpu} {precision} ({source})", "en": "datasheet: {gpu} {precision} ({source})"},
    "roofline.xlabel": {"bn": "গাণিতিক ঘনত্ব (FLOP/বাইট)", "en": "arithmetic intensity (FLOP/byte)"},
    "roofline.title": {"bn": "রুফলাইন: গতির দুই সীমা — গণনা আর মেমরি", "en": "Roofline: the two limits — compute and memory"},
    "roofline.progress": {"bn": "ছাদ মাপা হচ্ছে ({device})", "en": "measuring the roof ({device})"},
    "roofline.marked_point": {"bn": "লাল বৃত্ত = গোলমেলে, বা নিজের ছাদের ওপরে (মাপের সমস্যা)",
                              "en": "red ring = noisy, or above its own roof (a measurement problem)"},
})

# Said by bench.remeasure_noisy (moved from lesson 01's messages: lessons 01 and 04 use it).
MESSAGES.update({
    "bench.remeasure_none": {
        "bn": "{n}টি মাপের কোনোটি গোলমেলে নয়: আবার মাপার দরকার হয়নি।",
        "en": "None of the {n} measurements was noisy: nothing measured again.",
    },
    "bench.remeasure_done": {
        "bn": "{total}টি মাপের {n}টি গোলমেলে ছিল: সেগুলো একবার আবার মাপা হলো 1টি থ্রেডে; এখনও গোলমেলে {still}টি। নিচের রায় নতুন মাপের ওপর দাঁড়ায়।",
        "en": "{n} of {total} measurements were noisy: they were measured once more with 1 thread; still noisy: {still}. The verdict below stands on the new measurements.",
    },
})

# Said by measure/rerun.py: the one rerun at the quieter setting (issue 38) of lessons 05, 05b, 05c and 06.
MESSAGES.update({
    "rerun.offer": {
        "bn": "↻ এই রায় গোলমেলে মাপের ওপর: পরের সেলটি কোরগুলো খালি হওয়ার জন্য {wait_s:g} সেকেন্ড পর্যন্ত অপেক্ষা করে, খালি হলে একবার আবার মাপে।",
        "en": "↻ This verdict stood on a noisy measurement: the next cell waits up to {wait_s:g} s for free cores and, once they are free, measures once more.",
    },
    "rerun.not_needed": {
        "bn": "✓ উপরের মাপ শান্ত ছিল: আবার মাপার দরকার নেই।",
        "en": "✓ The measurement above was quiet: no need to measure again.",
    },
    "rerun.started": {
        "bn": "আবার মাপা হচ্ছে: দরকারি {cores}টি কোরই এখন খালি।",
        "en": "Measuring again: the {cores} cores it needs are free now.",
    },
    "rerun.still_busy": {
        "bn": "⚠️ আবার মাপা হলো না: {wait_s:g} সেকেন্ড অপেক্ষার পরেও দরকারি {cores}টি কোরের মধ্যে খালি মাত্র {free}টি। অন্য কোনো প্রোগ্রাম বাকি কোরগুলো ব্যবহার করছে, তাই এখন মাপলে সেই মাপও গোলমেলে হতো। অন্য প্রোগ্রাম বন্ধ করে এই সেলটি আবার চালাও, বা reference/ ফোল্ডারের মাপা ফল দেখো।",
        "en": "⚠️ Not measured again: after waiting {wait_s:g} s, only {free} of the {cores} cores it needs are free. Another program is using the rest, so a measurement now would be noisy too. Close other programs and run this cell again, or look at the measured results in reference/.",
    },
    "rerun.too_few_cores": {
        "bn": "⚠️ আবার মাপা হলো না: এই মাপে প্রসেস {cores}টি, কিন্তু এই মেশিনে কোর মাত্র {have}টি। প্রসেসগুলো কোর ভাগাভাগি করে চলে বলে আবার মাপলেও একই কারণে (কোরের চেয়ে বেশি থ্রেড) গোলমেলে হতো। অন্তত {cores} কোরের কোনো মেশিনে চালাও, বা reference/ ফোল্ডারের মাপা ফল দেখো।",
        "en": "⚠️ Not measured again: this measurement runs {cores} processes, but this machine has only {have} cores. The processes take turns on shared cores, so a new measurement would be noisy for the same reason (more threads than cores). Run it on a machine with at least {cores} cores, or look at the measured results in reference/.",
    },
    "rerun.gave_up": {
        "bn": "⚠️ আবার মাপাতেও গোলমেলে (কেন, তা ওপরের লাইনে বলা), তাই এখানকার সংখ্যা থেকে কিছু বলা হলো না। অন্য প্রোগ্রাম বন্ধ করে পরে আবার চালাও, বা reference/ ফোল্ডারের মাপা ফল দেখো।",
        "en": "⚠️ Noisy again (the line above says why), so nothing is concluded from these numbers. Close other programs and run it again later, or look at the measured results in reference/.",
    },
})
