"""Messages of lesson 01 (GPU vs CPU): its panel, plots, the roofline and the exercise checks."""

MESSAGES = {
    # roofline (fastrain_lib.measure.roofline)
    # plots and progress
    "lesson01.ideal": {"bn": "আদর্শ (থ্রেড যত, গতি তত গুণ)", "en": "ideal (speed-up = threads)"},
    "lesson01.threads_axis": {"bn": "CPU থ্রেডের সংখ্যা", "en": "number of CPU threads"},
    "lesson01.speedup_axis": {"bn": "গতিবৃদ্ধি (1 থ্রেডের তুলনায়)", "en": "speed-up (over 1 thread)"},
    "lesson01.threads_title": {"bn": "{size}×{size} ম্যাট্রিক্স গুণ: থ্রেড বাড়ালে কত দ্রুত?", "en": "{size}×{size} matmul: how much faster with more threads?"},
    "lesson01.numel_axis": {"bn": "টেনসরের উপাদান সংখ্যা", "en": "number of tensor elements"},
    "lesson01.matmul_title": {"bn": "ম্যাট্রিক্স গুণ: গণনার গতি", "en": "matrix multiply: compute speed"},
    "lesson01.add_title": {"bn": "যোগ c = a + b: মেমরির গতি", "en": "addition c = a + b: memory speed"},
    "lesson01.batch_title": {"bn": "SimpleNN-এর প্রশিক্ষণ ধাপ: batch আকার বনাম থ্রুপুট", "en": "SimpleNN training step: batch size vs throughput"},
    # panel
    "lesson01.panel_title": {"bn": "GPU বনাম CPU: আকার, ডেটা টাইপ, ডিভাইস আর থ্রেড বদলে দেখো", "en": "GPU vs CPU: change size, dtype, devices and threads"},
    "lesson01.max_size": {"bn": "সবচেয়ে বড় n", "en": "largest n"},
    "lesson01.devices": {"bn": "ডিভাইস", "en": "devices"},
    "lesson01.iqr_ms": {"bn": "IQR (মিলিসেকেন্ড)", "en": "IQR (ms)"},
    "lesson01.panel_plot_title": {"bn": "ম্যাট্রিক্স গুণ, {dtype}, CPU থ্রেড = {threads}", "en": "matrix multiply, {dtype}, CPU threads = {threads}"},
    # notes printed by the notebook
    # exercise checks (fastrain_lib.lessons.l01_gpu_vs_cpu.checks)
    "lesson01.check.not_number": {
        "bn": "ফাংশনটি একটি সংখ্যা ফেরত দেওয়ার কথা, কিন্তু পাওয়া গেল {kind}। return দিয়ে একটি float বা int ফেরত দাও।",
        "en": "The function should return a number, but returned {kind}. Return a float or an int.",
    },
    "lesson01.check.missing_factor_2": {
        "bn": "তোমার উত্তর ঠিক উত্তরের অর্ধেক। ম্যাট্রিক্স গুণে প্রতিটি ধাপে একটি গুণ আর একটি যোগ হয় — দুটোই FLOP। তাই মোট কাজ 2·n³, শুধু n³ নয়।",
        "en": "Your answer is half the right one. Each step of a matmul is a multiply and an add — both are FLOPs. So the work is 2·n³, not n³.",
    },
    "lesson01.check.n_squared": {
        "bn": "তোমার উত্তর n বাড়লে n² হারে বাড়ছে, কিন্তু ম্যাট্রিক্স গুণের কাজ বাড়ে n³ হারে: ফলাফলের n² টি ঘরের প্রতিটিতে n টি গুণ-যোগ। মোট 2·n³।",
        "en": "Your answer grows like n², but matmul work grows like n³: each of the n² outputs needs n multiply-adds. Total 2·n³.",
    },
    "lesson01.check.not_giga": {
        "bn": "এককটা মিলছে না: GFLOP/s মানে প্রতি সেকেন্ডে বিলিয়ন (10⁹) FLOP। FLOP/সেকেন্ডকে 1e9 দিয়ে ভাগ করো।",
        "en": "The unit is off: GFLOP/s means billions (10⁹) of FLOPs per second. Divide FLOP/s by 1e9.",
    },
    "lesson01.check.inverted_rate": {
        "bn": "তুমি সময়কে কাজ দিয়ে ভাগ করেছ। গতি = কাজ ÷ সময় (FLOP ÷ সেকেন্ড), উল্টো নয়।",
        "en": "You divided time by work. Speed = work ÷ time (FLOPs ÷ seconds), not the other way round.",
    },
    "lesson01.check.wrong_value": {
        "bn": "উত্তর মিলছে না: {case} হলে প্রত্যাশিত {expected:.4g}, তোমার ফাংশন দিল {got:.4g}। সূত্রটা ধাপে ধাপে আবার দেখো।",
        "en": "The answer does not match: for {case} expected {expected:.4g}, your function gave {got:.4g}. Go through the formula step by step.",
    },
    "lesson01.check.bits_not_bytes": {
        "bn": "তোমার উত্তর ঠিক উত্তরের 1/8 ভাগ: মনে হচ্ছে বাইটের জায়গায় বিট গুনেছ। float32-এর একটি সংখ্যা 4 বাইট (32 বিট); ব্যান্ডউইথ আর গাণিতিক ঘনত্ব বাইটে মাপা হয়।",
        "en": "Your answer is one eighth of the right one: it looks like you counted bits, not bytes. A float32 number is 4 bytes (32 bits); bandwidth and intensity are in bytes.",
    },
    "lesson01.check.forgot_output": {
        "bn": "তুমি শুধু দুটি ইনপুট ম্যাট্রিক্স পড়ার বাইট গুনেছ। ফল C-ও মেমরিতে লিখতে হয়: মোট 3·n² টি সংখ্যা সরানো হয়।",
        "en": "You counted only reading the two input matrices. The result C must be written too: 3·n² numbers move in all.",
    },
    "lesson01.check.inverted_bound": {
        "bn": "উল্টো হয়ে গেছে: গাণিতিক ঘনত্ব রিজ বিন্দুর (peak ÷ bandwidth) চেয়ে বেশি হলে কাজটি গণনা-সীমিত (\"compute\"), কম হলে মেমরি-সীমিত (\"memory\")।",
        "en": "It is the wrong way round: intensity above the ridge point (peak ÷ bandwidth) is compute-bound (\"compute\"), below it memory-bound (\"memory\").",
    },
    "lesson01.check.constant_bound": {
        "bn": "তোমার ফাংশন সব ক্ষেত্রে একই উত্তর ({answer!r}) দিচ্ছে। গাণিতিক ঘনত্বকে রিজ বিন্দু = peak_gflops ÷ bandwidth_gbs এর সাথে তুলনা করো।",
        "en": "Your function gives the same answer ({answer!r}) every time. Compare the intensity with the ridge point = peak_gflops ÷ bandwidth_gbs.",
    },
    "lesson01.check.wrong_ridge": {
        "bn": "কিছু ক্ষেত্রে উত্তর ভুল ({case})। তুলনাটা হবে রিজ বিন্দুর সাথে: intensity ≥ peak_gflops ÷ bandwidth_gbs হলে \"compute\", নইলে \"memory\"।",
        "en": "Some cases are wrong ({case}). Compare with the ridge point: intensity ≥ peak_gflops ÷ bandwidth_gbs means \"compute\", else \"memory\".",
    },
    "lesson01.check.bad_label": {
        "bn": "উত্তর হতে হবে ঠিক \"compute\" অথবা \"memory\" (ছোট হাতের ইংরেজি), কিন্তু পাওয়া গেল {answer!r}।",
        "en": "The answer must be exactly \"compute\" or \"memory\" (lower case), but got {answer!r}.",
    },
    "lesson01.check.ridge_boundary": {
        "bn": "প্রায় সব ঠিক, শুধু ঠিক রিজ বিন্দুতে ভুল: intensity={ridge:g}, peak_gflops={peak:g}, bandwidth_gbs={bandwidth:g} হলে intensity ঠিক peak ÷ bandwidth-এর সমান, দুই সীমা সমান। কাজের নিয়মে তখন \"compute\": তুলনাটা >= দিয়ে লেখো, > দিয়ে নয়।",
        "en": "Almost all right, only the exact ridge is wrong: for intensity={ridge:g}, peak_gflops={peak:g}, bandwidth_gbs={bandwidth:g} the intensity equals peak ÷ bandwidth, the two limits are equal. The task says \"compute\" there: compare with >=, not >.",
    },
    "lesson01.check.timed_once": {
        "bn": "প্রশিক্ষণ ধাপটি মাত্র {calls} বার চলেছে। একবার (বা দুবার) মাপা সময় ভাগ্যের ব্যাপার, আর প্রথম কলে এককালীন খরচ থাকে: bench.measure দিয়ে মাপো — সে আগে warm-up করে, তারপর বহুবার চালিয়ে মধ্যমা নেয়।",
        "en": "The training step ran only {calls} times. A time measured once (or twice) is luck, and the first call carries one-off costs: measure with bench.measure — it warms up, then runs many times and takes the median.",
    },
    "lesson01.check.warmup_timed": {
        "bn": "তোমার মধ্যমা সময় {median_ms:.1f} ms, অথচ এই মেশিনে এখন একটি ধাপ নেয় বড়জোর প্রায় {limit_ms:.1f} ms — যাচাই সেল প্রথম কলটিকে ইচ্ছা করে {slow_ms:.0f} ms ধীর করেছিল, আর সেটা তোমার মাপে ঢুকে গেছে। প্রথম কল (warm-up) মাপের বাইরে রাখো: bench.measure নিজেই আগে কয়েকবার চালিয়ে নেয়, তারপর মধ্যমা নেয়।",
        "en": "Your median time is {median_ms:.1f} ms, while one step takes at most about {limit_ms:.1f} ms on this machine now — the check made the first call {slow_ms:.0f} ms slower on purpose, and it got into your measurement. Leave the first call (warm-up) out: bench.measure runs a few calls first, then takes the median.",
    },
    "lesson01.check.rounds_shape": {
        "bn": "ফেরত দেওয়ার কথা দুটি তালিকা — (baseline_s, variant_s) — প্রতিটিতে {rounds}টি সময় (সেকেন্ডে), কিন্তু পাওয়া গেল {kind}।",
        "en": "It should return two lists — (baseline_s, variant_s) — each with {rounds} times (in seconds), but returned {kind}.",
    },
    "lesson01.check.rounds_units": {
        "bn": "সময়গুলো সেকেন্ডে দাও: এখানে প্রতিটি কাজ কয়েক মিলিসেকেন্ডের, অথচ সবচেয়ে ছোট সময় এসেছে {got:.3g} — মনে হচ্ছে মিলিসেকেন্ডে দিয়েছ।",
        "en": "Give the times in seconds: each call here takes a few milliseconds, yet the smallest time is {got:.3g} — it looks like milliseconds.",
    },
    "lesson01.check.rounds_too_few": {
        "bn": "{rounds}টি রাউন্ডের জন্য দুটি ফাংশনের প্রতিটি অন্তত {rounds} বার চলার কথা, কিন্তু চলেছে baseline {base} বার, variant {variant} বার। প্রতি রাউন্ডে দুটিকেই একবার করে চালিয়ে মাপো।",
        "en": "For {rounds} rounds each function should run at least {rounds} times, but baseline ran {base} times and variant {variant}. In every round run and time each of them once.",
    },
    "lesson01.check.rounds_warmup_timed": {
        "bn": "একটি রাউন্ডের সময় {worst_ms:.0f} ms — যাচাই সেল দুটি ফাংশনের প্রথম কলকেই ইচ্ছা করে {warm_ms:.0f} ms ধীর করেছিল (যেমন প্রথম কলে ক্যাশ, মেমরি বরাদ্দ, কম্পাইল), আর সেটা তোমার মাপে ঢুকে গেছে। আগে প্রতিটিকে একবার চালিয়ে নাও (warm-up), মাপো তার পরে।",
        "en": "One round took {worst_ms:.0f} ms — the check made the first call of each function {warm_ms:.0f} ms slower on purpose (as caches, allocation or compiling do), and it got into your times. Run each once first (warm-up), then measure.",
    },
    "lesson01.check.rounds_not_interleaved": {
        "bn": "ডাকগুলো পালা করে হয়নি: একই ফাংশনের টানা ডাকের মাত্র {runs}টি দল, অথচ {rounds}টি রাউন্ডে পালা করে (A B, A B, ...) মাপলে অন্তত {rounds}×2টি দল হয়। আগে সব baseline তারপর সব variant মাপলে মাঝপথে লোড এলে একটিই ভোগে — প্রতি রাউন্ডে দুটিকে পাশাপাশি মাপো।",
        "en": "The calls did not alternate: only {runs} stretches of calls to the same function, while {rounds} interleaved rounds (A B, A B, ...) give at least {rounds}×2. Measuring all baseline runs and then all variant runs lets a burst of load hit one side only — time both within each round.",
    },
    "lesson01.check.rounds_wrong_times": {
        "bn": "ফেরত দেওয়া সময়গুলোর অন্তত একটি কোনো ডাকের আসল সময়ের সাথে মেলে না (সবচেয়ে ছোটটি {got_ms:.2f} ms; baseline প্রতিবার অন্তত {base_ms:.0f} ms, variant অন্তত {variant_ms:.0f} ms নেয়, আর যাচাই সেল প্রতিটি ডাকের সময় নিজের ঘড়িতে মেপেছে)। ঠিক ডাকটির আগে আর পরে ঘড়ি পড়ো (time.perf_counter), তারপর বিয়োগ করো — সময় বানিয়ে বা ঘড়ি বদলে নয়।",
        "en": "At least one returned time matches no call's real duration (the smallest is {got_ms:.2f} ms; baseline takes at least {base_ms:.0f} ms each time, variant at least {variant_ms:.0f} ms, and the check timed every call on its own clock). Read the clock right before and right after the call (time.perf_counter) and subtract — do not make times up or change the clock.",
    },
    "lesson01.check.time_not_measured": {
        "bn": "Record-এর মধ্যমা {median_ms:.3f} ms, অথচ যাচাই সেল নিজের ঘড়িতে দেখেছে তোমার প্রতিটি ধাপ প্রায় {own_ms:.3f} ms নিয়েছে। মধ্যমা আসতে হবে মাপ থেকে: bench.measure যা দিয়েছে সেটাই রাখো, হাতে বদলিও না।",
        "en": "The Record's median is {median_ms:.3f} ms, yet the check saw on its own clock that each of your steps took about {own_ms:.3f} ms. The median must come from the measurement: keep what bench.measure gave, do not change it by hand.",
    },
    "lesson01.check.median_not_from_times": {
        "bn": "Record-এর মধ্যমা {median_ms:.3f} ms, অথচ তার নিজের সময়গুলো {low_ms:.3f} থেকে {high_ms:.3f} ms-এর মধ্যে। সময়গুলোর মধ্যমা বা গড় সবসময় সবচেয়ে ছোট আর সবচেয়ে বড় সময়ের মাঝে থাকে: bench.measure যা দিয়েছে সেটাই রাখো, হাতে বদলিও না।",
        "en": "The Record's median is {median_ms:.3f} ms, yet its own times run from {low_ms:.3f} to {high_ms:.3f} ms. A median or mean of the times always lies between the smallest and the largest: keep what bench.measure gave, do not change it by hand.",
    },
    "lesson01.check.clock_swapped": {
        "bn": "তোমার ধাপগুলো যখন চলছিল, time.perf_counter তখন Python-এর নিজের ঘড়ি ছিল না (অন্য কিছু দিয়ে বদলানো হয়েছিল), তাই মাপা সময় বিশ্বাস করা যায় না। আসল ঘড়ি দিয়ে মাপো: time.perf_counter যেমন আছে তেমন, অথবা bench.measure।",
        "en": "While your steps ran, time.perf_counter was not Python's own clock (it had been replaced), so the times cannot be trusted. Time with the real clock: time.perf_counter as it is, or bench.measure.",
    },
    "lesson01.check.rounds_swapped": {
        "bn": "দুটি তালিকা উল্টে গেছে: এখানে variant-ই দ্রুত, অথচ তোমার variant_s-এর সময় baseline_s-এর চেয়ে বেশি। প্রথমটি baseline-এর সময়, দ্বিতীয়টি variant-এর — এই ক্রমে ফেরত দাও।",
        "en": "The two lists are swapped: here the variant is the faster one, yet your variant_s times are longer than baseline_s. Return the baseline's times first, the variant's second.",
    },
    "lesson01.check.not_record": {
        "bn": "ফাংশনটি bench.measure যে Record দেয় সেটাই ফেরত দেওয়ার কথা, কিন্তু পাওয়া গেল {kind}। record = bench.measure(...) লিখে record ফেরত দাও।",
        "en": "The function should return the Record that bench.measure gives, but returned {kind}. Write record = bench.measure(...) and return record.",
    },
    "lesson01.check.no_metric": {
        "bn": "record.metrics[\"samples_per_s\"] পাওয়া যায়নি। মাপার পরে record.metrics[\"samples_per_s\"] = ... লিখে থ্রুপুট রাখো।",
        "en": "record.metrics[\"samples_per_s\"] is missing. After measuring, store the throughput with record.metrics[\"samples_per_s\"] = ....",
    },
    "lesson01.check.bad_time": {
        "bn": "record.median_s ({value!r}) একটি ধনাত্মক সময় নয়। bench.measure দিয়ে প্রশিক্ষণ ধাপটি মাপো।",
        "en": "record.median_s ({value!r}) is not a positive time. Measure the training step with bench.measure.",
    },
    "lesson01.check.steps_not_samples": {
        "bn": "তুমি প্রতি সেকেন্ডে ধাপের সংখ্যা (1 ÷ সময়) দিয়েছ। থ্রুপুট গুনতে নমুনা লাগে: batch_size ÷ record.median_s।",
        "en": "You gave steps per second (1 ÷ time). Throughput counts samples: batch_size ÷ record.median_s.",
    },
    "lesson01.check.time_not_rate": {
        "bn": "তুমি সময় (সেকেন্ড) দিয়েছ, গতি নয়। নমুনা/সেকেন্ড = batch_size ÷ record.median_s।",
        "en": "You gave a time (seconds), not a rate. Samples/s = batch_size ÷ record.median_s.",
    },
    "lesson01.check.wrong_batch": {
        "bn": "record.params[\"batch_size\"] ({got!r}) চাওয়া batch আকারের ({expected}) সাথে মিলছে না। ফাংশনের batch_size দিয়েই ইনপুট বানাও আর params-এ লেখো।",
        "en": "record.params[\"batch_size\"] ({got!r}) does not match the requested batch size ({expected}). Build the inputs from batch_size and record it in params.",
    },
    "lesson01.check.wrong_rate": {
        "bn": "samples_per_s ({got:.4g}) আর batch_size ÷ median_s ({expected:.4g}) মিলছে না। থ্রুপুট হিসাব করো record-এর মধ্যমা সময় থেকেই।",
        "en": "samples_per_s ({got:.4g}) does not equal batch_size ÷ median_s ({expected:.4g}). Compute the throughput from the record's median time.",
    },
    "lesson01.check.no_training": {
        "bn": "মাপা ধাপে মডেলের ওজন বদলায়নি: প্রশিক্ষণ ধাপে backward() আর optimizer.step() দুটোই থাকতে হবে, শুধু ফরওয়ার্ড পাস নয়।",
        "en": "The weights did not change in the measured step: a training step needs backward() and optimizer.step(), not only the forward pass.",
    },
    # verdict rules (fastrain_lib.lessons.l01_gpu_vs_cpu.verdicts)
    "lesson01.ratio_faster": {"bn": "{n:.1f} গুণ দ্রুত", "en": "{n:.1f}× faster"},
    "lesson01.ratio_slower": {"bn": "{n:.1f} গুণ ধীর", "en": "{n:.1f}× slower"},
    "lesson01.ratio_same": {"bn": "প্রায় একই গতি ({ratio:.2f}×)", "en": "about the same speed ({ratio:.2f}×)"},
    "lesson01.v_threads_single": {
        "bn": "এই মেশিনে মাত্র 1টি থ্রেড চলে, তাই থ্রেড বাড়ানোর তুলনা এখানে করা যায় না।",
        "en": "This machine runs only 1 thread, so there is nothing to compare here.",
    },
    "lesson01.v_threads_measured": {
        "bn": "এখানে মাপা: 1 থ্রেডের তুলনায় {threads} থ্রেডে গুণটি {phrase} (গতিবৃদ্ধি {speedup:.2f}×, আদর্শ {threads}×)।",
        "en": "Measured here: with {threads} threads the matmul is {phrase} than with 1 (speed-up {speedup:.2f}×, ideal {threads}×).",
    },
    "lesson01.v_threads_near_ideal": {
        "bn": "এখানে মাপা: {threads} থ্রেডে গতিবৃদ্ধি {speedup:.2f}×, আদর্শ {threads}×-এর কাছাকাছি।",
        "en": "Measured here: {threads} threads give a {speedup:.2f}× speed-up, close to the ideal {threads}×.",
    },
    "lesson01.v_threads_below": {
        "bn": "লাভ হয়েছে, কিন্তু আদর্শ {threads}×-এর নিচে — নিচের কারণগুলো দেখো।",
        "en": "It helped, but below the ideal {threads}× — see the reasons below.",
    },
    "lesson01.v_threads_none": {
        "bn": "বেশি থ্রেডে লাভ হয়নি, অথচ মাপগুলো শান্ত: কাজটা এত ছোট যে ভাগাভাগির খরচই বেশি — বড় ম্যাট্রিক্সে আবার দেখো।",
        "en": "More threads did not help, and the measurements were quiet: the work is so small that splitting it costs more — try a bigger matrix.",
    },
    "lesson01.v_sizes_measured": {
        "bn": "এখানে মাপা ({device}): {small}×{small} ম্যাট্রিক্স গুণ {small_rate:.3g} GFLOP/s, {big}×{big} {big_rate:.3g} GFLOP/s — বড়টি {phrase}।",
        "en": "Measured here ({device}): a {small}×{small} matmul runs at {small_rate:.3g} GFLOP/s, {big}×{big} at {big_rate:.3g} GFLOP/s — the big one is {phrase}.",
    },
    "lesson01.v_sizes_flat": {
        "bn": "পার্থক্য ছোট: এই মোডে সবচেয়ে বড় ম্যাট্রিক্সও ছোট — lab মোডে বড় আকারে দেখো।",
        "en": "The difference is small: in this mode even the biggest matrix is small — try bigger sizes in lab mode.",
    },
    "lesson01.v_sizes_fixed_cost": {
        "bn": "ছোট গুণটি তার FLOP-এর হিসাবের চেয়ে {extra_us:.1f} µs বেশি নিয়েছে — এই রানেই মাপা প্রতি কলের নির্দিষ্ট খরচের ({overhead_us:.1f} µs) {times:.1f} গুণ, অর্থাৎ সেই খরচের মাপেরই। তাই ছোট ম্যাট্রিক্সে প্রতিটি কলের নির্দিষ্ট খরচ কাজের তুলনায় বড়; আকার বাড়লে সেই খরচ অনেক কাজে ভাগ হয়।",
        "en": "The small matmul took {extra_us:.1f} µs more than its FLOPs account for — {times:.1f}× the per-call cost measured in this run ({overhead_us:.1f} µs), so of that cost's size. For small matrices the fixed cost of each call is large compared with the work; a bigger size spreads it over much more work.",
    },
    "lesson01.v_sizes_unexplained": {
        "bn": "ছোট গুণটি তার FLOP-এর হিসাবের চেয়ে {extra_us:.1f} µs বেশি নিয়েছে — এই রানেই মাপা প্রতি কলের নির্দিষ্ট খরচের ({overhead_us:.1f} µs) {times:.0f} গুণ। এত বড় ফাঁক প্রতি কলের খরচ দিয়ে ব্যাখ্যা হয় না, তাই এখানে কোনো কারণ বলা হচ্ছে না: মাপটি সম্ভবত অন্য কাজের ভারে নষ্ট। ঘরটি আবার চালাও।",
        "en": "The small matmul took {extra_us:.1f} µs more than its FLOPs account for — {times:.0f}× the per-call cost measured in this run ({overhead_us:.1f} µs). A gap that large is not the cost of a call, so no cause is given here: the measurement was probably spoiled by other work. Run the cell again.",
    },
    "lesson01.v_add_measured": {
        "bn": "এখানে মাপা ({device}): যোগ সবচেয়ে দ্রুত {best_n:,.0f} উপাদানে ({best_mb:.2f} MB তিনটি টেনসর মিলে), {best_rate:.3g} GB/s; সবচেয়ে বড়টিতে ({big_n:,.0f} উপাদান, {big_mb:.1f} MB) {big_rate:.3g} GB/s।",
        "en": "Measured here ({device}): addition is fastest at {best_n:,.0f} elements ({best_mb:.2f} MB for the three tensors), {best_rate:.3g} GB/s; at the biggest ({big_n:,.0f} elements, {big_mb:.1f} MB) {big_rate:.3g} GB/s.",
    },
    "lesson01.v_add_flat": {
        "bn": "সবচেয়ে বড় টেনসরের গতি সেরার কাছাকাছি: এই আকারগুলোতে গতি তেমন নামেনি।",
        "en": "The biggest tensor moves nearly as fast as the best: the speed hardly fell over these sizes.",
    },
    "lesson01.v_add_ram": {
        "bn": "{slow_n:,.0f} উপাদান থেকে তিনটি টেনসর মিলে {slow_mb:.1f} MB — এই মেশিনের ক্যাশের ({cache_mb:.1f} MB) চেয়ে বড়। তাই তারা ক্যাশে ধরে না, আর গতি প্রধান মেমরির (RAM) ব্যান্ডউইথে নেমে আসে।",
        "en": "From {slow_n:,.0f} elements the three tensors take {slow_mb:.1f} MB — more than this machine's cache ({cache_mb:.1f} MB). So they do not fit in the cache, and the speed drops to the main memory (RAM) bandwidth.",
    },
    "lesson01.v_add_unexplained": {
        "bn": "{slow_n:,.0f} উপাদানে যোগ মাত্র {slow_rate:.3g} GB/s, অথচ তার তিনটি টেনসর ({slow_mb:.2f} MB) এই মেশিনের ক্যাশে ({cache_mb:.1f} MB) ধরে। ক্যাশ দিয়ে এটা ব্যাখ্যা হয় না, তাই কোনো কারণ বলা হচ্ছে না: মাপটি সম্ভবত অন্য কাজের ভারে নষ্ট। ঘরটি আবার চালাও।",
        "en": "At {slow_n:,.0f} elements addition ran at only {slow_rate:.3g} GB/s, yet its three tensors ({slow_mb:.2f} MB) fit in this machine's cache ({cache_mb:.1f} MB). The cache does not explain it, so no cause is given: the measurement was probably spoiled by other work. Run the cell again.",
    },
    "lesson01.v_add_cache_unknown": {
        "bn": "{slow_n:,.0f} উপাদানে গতি নেমে {slow_rate:.3g} GB/s হয়েছে। এই মেশিনের ক্যাশের আকার এখানে জানা যায়নি, তাই টেনসর ক্যাশে ধরে কিনা বলা হচ্ছে না।",
        "en": "At {slow_n:,.0f} elements the speed fell to {slow_rate:.3g} GB/s. This machine's cache size is not known here, so whether the tensors fit in it is not claimed.",
    },
    "lesson01.v_above_ceiling": {
        "bn": "⚠ {name}: {got:.1f} GFLOP/s, অথচ পাশেই মাপা তার নিজের ছাদ {ceiling:.1f} GFLOP/s ({share:.0%})। ছাদ ছাড়ানো যায় না, তাই এটা মাপের সমস্যা (গোলমাল): দুই মাপের মাঝে মেশিনের গতি বদলেছে — অন্য কাজের ভারে, বা ভার্চুয়াল মেশিনে তার হোস্টের অন্য কাজে, যা এই মেশিনের নিজের হিসাবে সবসময় ধরা পড়ে না। এর কোনো ব্যাখ্যা দেওয়া হচ্ছে না — শান্ত মেশিনে আবার চালাও।",
        "en": "⚠ {name}: {got:.1f} GFLOP/s, yet its own ceiling measured next to it is {ceiling:.1f} GFLOP/s ({share:.0%}). A ceiling cannot be beaten, so this is a measurement problem (noise): the machine's speed changed between the two — other work, or on a virtual machine its host's other work, which this machine's own counters do not always see. No explanation is given — run it again on a quiet machine.",
    },
    "lesson01.v_batch_measured": {
        "bn": "এখানে মাপা ({device}): batch {first} থেকে {last}-এ থ্রুপুট {phrase} ({first_rate:,.0f} → {last_rate:,.0f} নমুনা/সেকেন্ড)।",
        "en": "Measured here ({device}): from batch {first} to {last} the throughput is {phrase} ({first_rate:,.0f} → {last_rate:,.0f} samples/s).",
    },
    "lesson01.v_batch_unexplained": {
        "bn": "batch {small}-এর একটি ধাপ ({small_ms:.2f} ms) batch {big}-এর পুরো ধাপের ({big_ms:.2f} ms) চেয়েও বেশি সময় নিয়েছে। প্রতি ধাপের নির্দিষ্ট খরচ বড় ধাপের পুরো সময়ের চেয়ে বেশি হতে পারে না, তাই এখানে কোনো কারণ বলা হচ্ছে না: মাপটি সম্ভবত অন্য কাজের ভারে নষ্ট। ঘরটি আবার চালাও।",
        "en": "One step at batch {small} ({small_ms:.2f} ms) took longer than the whole step at batch {big} ({big_ms:.2f} ms). A fixed per-step cost cannot exceed the whole bigger step, so no cause is given here: the measurement was probably spoiled by other work. Run the cell again.",
    },
    "lesson01.v_batch_fixed_cost": {
        "bn": "batch {first} থেকে {last} — নমুনা {batch_growth:.0f} গুণ, কিন্তু ধাপের সময় মাত্র {time_growth:.2f} গুণ ({first_ms:.2f} → {last_ms:.2f} ms): ছোট ধাপের বড় অংশ প্রতি ধাপের নির্দিষ্ট খরচ, যা বড় batch-এ অনেক নমুনায় ভাগ হয়।",
        "en": "From batch {first} to {last} — {batch_growth:.0f}× the samples, but only {time_growth:.2f}× the step time ({first_ms:.2f} → {last_ms:.2f} ms): much of the small step is a fixed per-step cost, which a bigger batch shares over more samples.",
    },
    "lesson01.v_batch_flattening": {
        "bn": "শেষ ধাপে (batch {before} → {last}) থ্রুপুট {phrase}: রেখা চ্যাপ্টা হয়ে আসছে, যন্ত্র প্রায় পুরো ব্যস্ত, আরও বড় batch-এ লাভ সামান্য।",
        "en": "In the last step (batch {before} → {last}) the throughput is {phrase}: the curve is flattening, the machine is nearly busy, a bigger batch adds little.",
    },
    "lesson01.v_batch_growing": {
        "bn": "শেষ ধাপে (batch {before} → {last}) থ্রুপুট {phrase}: এখনও বাড়ছে, এই আকারে যন্ত্র পুরো ব্যস্ত হয়নি।",
        "en": "In the last step (batch {before} → {last}) the throughput is {phrase}: still growing, at these sizes the machine is not yet busy.",
    },
    "lesson01.v_load_cost": {
        "bn": "এই রানে, লোডের পাশে: সব {threads}টি থ্রেডে {all_rate:.1f} GFLOP/s ({all_word}), খালি কোরে যে {fit}টি থ্রেড ধরে তাতে {fit_rate:.1f} GFLOP/s ({fit_word}) — থ্রেডের ভিড়ের দাম: সব থ্রেডে গুণটি {cost_phrase}।",
        "en": "This run, beside the load: all {threads} threads {all_rate:.1f} GFLOP/s ({all_word}), the {fit} thread(s) that fit the free cores {fit_rate:.1f} GFLOP/s ({fit_word}) — the cost of oversubscription: with all threads the matmul is {cost_phrase}.",
    },
    "lesson01.v_load_no_cost": {
        "bn": "এই রানে, লোডের পাশে: সব {threads}টি থ্রেডে {all_rate:.1f} GFLOP/s ({all_word}), খালি কোরে যে {fit}টি থ্রেড ধরে তাতে {fit_rate:.1f} GFLOP/s ({fit_word}) — এবার থ্রেডের ভিড়ের কোনো দাম দেখা যায়নি: সব থ্রেডে গুণটি {cost_phrase}।",
        "en": "This run, beside the load: all {threads} threads {all_rate:.1f} GFLOP/s ({all_word}), the {fit} thread(s) that fit the free cores {fit_rate:.1f} GFLOP/s ({fit_word}) — this time oversubscription showed no cost: with all threads the matmul is {cost_phrase}.",
    },
    "lesson01.v_load_fit_kept": {
        "bn": "লোড ছাড়া সব থ্রেডে {quiet_rate:.1f} GFLOP/s ({quiet_word}); লোডের পাশে খালি কোরে ধরা {fit}টি থ্রেড তার {kept:.0%} পেয়েছে ({fit_word})।",
        "en": "Without the load all threads gave {quiet_rate:.1f} GFLOP/s ({quiet_word}); beside it the {fit} thread(s) that fit kept {kept:.0%} of that ({fit_word}).",
    },
    "lesson01.v_load_all_fit": {
        "bn": "এবার লোডের পাশেও সব {threads}টি থ্রেড খালি কোরে ধরেছে, তাই থ্রেডের ভিড় এখানে হয়নি: সব থ্রেডে {all_rate:.1f} GFLOP/s ({all_word})।",
        "en": "This time all {threads} threads fit the free cores even beside the load, so there was no oversubscription here: all threads {all_rate:.1f} GFLOP/s ({all_word}).",
    },
    "lesson01.v_load_one_core": {
        "bn": "এই মেশিনে থ্রেড মাত্র 1টি, তাই থ্রেডের ভিড় এখানে দেখা যায় না; লোডের পাশে গুণটি {one_phrase} (লোডের সময় {all_word}, লোড ছাড়া {quiet_word})।",
        "en": "This machine runs 1 thread, so oversubscription cannot show here; beside the load the matmul is {one_phrase} ({all_word} under load, {quiet_word} without it).",
    },
    "lesson01.row_load": {"bn": "{situation}, {x} থ্রেড", "en": "{situation}, {x} thread(s)"},
    "lesson01.situation_quiet": {"bn": "লোড ছাড়া", "en": "no load"},
    "lesson01.situation_busy": {"bn": "লোডের পাশে", "en": "beside the load"},
    "lesson01.reference_run": {
        "bn": "রেফারেন্স: {run}",
        "en": "reference: {run}",
    },
    # the # VERDICT cells' sentences (verdicts.py)
    "lesson01.v_gpu_vs_cpu": {
        "bn": "এখানে মাপা: ম্যাট্রিক্স গুণে GPU {gpu_mm:.0f} GFLOP/s, CPU {cpu_mm:.0f} GFLOP/s → GPU {mm_phrase}; যোগে GPU {gpu_add:.0f} GB/s, CPU {cpu_add:.0f} GB/s → GPU {add_phrase}।",
        "en": "Measured here: matmul GPU {gpu_mm:.0f} GFLOP/s, CPU {cpu_mm:.0f} GFLOP/s → the GPU is {mm_phrase}; addition GPU {gpu_add:.0f} GB/s, CPU {cpu_add:.0f} GB/s → {add_phrase}.",
    },
    "lesson01.v_no_gpu": {
        "bn": "এই মেশিনে GPU নেই। CPU-র সেরা মাপ: {mm:.1f} GFLOP/s, {add:.1f} GB/s। Colab-এ GPU নিয়ে (Runtime → Change runtime type → T4 GPU) আবার চালালে দুটি পাশাপাশি দেখবে।",
        "en": "No GPU on this machine. The CPU's best: {mm:.1f} GFLOP/s, {add:.1f} GB/s. Run this again on Colab with a GPU (Runtime → Change runtime type → T4 GPU) to see both side by side.",
    },
    "lesson01.v_roof_count": {
        "bn": "এখানে মাপা ({device}): {n}টি বিন্দুর {below}টি এই মেশিনের ছাদের নিচে বা ছাদে, {above}টি ছাদের ওপরে।",
        "en": "Measured here ({device}): {below} of {n} points sit at or below this machine's roof, {above} above it.",
    },
    "lesson01.v_regime_limits": {
        "bn": "এই মেশিনে ({device}) তিনটি সীমা উদাহরণগুলোর পাশে মাপা হলো: প্রতিটি ছোট অপারেশনের নির্দিষ্ট খরচ {overhead_us:.1f} µs, মেমরি ব্যান্ডউইথ {bandwidth:.1f} GB/s, সর্বোচ্চ গণনা {peak:.1f} GFLOP/s। অর্থাৎ একটি float32 এলিমেন্টওয়াইজ অপারেশনকে ওভারহেড ছাড়িয়ে মেমরি-সীমিত হতে প্রায় {border:,.0f}টি উপাদান লাগে।",
        "en": "Three limits measured next to the examples on this machine ({device}): a fixed cost of {overhead_us:.1f} µs per small op, memory bandwidth {bandwidth:.1f} GB/s, peak compute {peak:.1f} GFLOP/s. So a float32 elementwise op needs about {border:,.0f} elements before it leaves the overhead regime and becomes memory-bound.",
    },
    "lesson01.v_dtypes_measured": {
        "bn": "এখানে মাপা (CPU, {n}×{n}): fp32 {fp32:.1f}, bf16 {bf16:.1f}, fp16 {fp16:.1f} GFLOP/s।",
        "en": "Measured here (CPU, {n}×{n}): fp32 {fp32:.1f}, bf16 {bf16:.1f}, fp16 {fp16:.1f} GFLOP/s.",
    },
    "lesson01.v_dtypes_fast": {
        "bn": "{fastest} এখানে fp32-এর চেয়ে {phrase}: এই CPU-তে সেই ফরম্যাটের গুণ-যোগের নিজস্ব দ্রুত নির্দেশ আছে (hardware.show_report() দেখো)।",
        "en": "{fastest} is {phrase} than fp32 here: this CPU has fast instructions of its own for that format (see hardware.show_report()).",
    },
    "lesson01.v_dtypes_slow": {
        "bn": "কম বিট এখানে দ্রুত নয় (শান্ত মাপ: সবচেয়ে ভালোটিও fp32-এর তুলনায় {phrase}): এই CPU-তে 16-বিট গুণের আলাদা দ্রুত একক নেই, তাই PyTorch সংখ্যাগুলো রূপান্তর করে গোনে। টেনসর কোরওয়ালা GPU-তে উল্টোটা হয়।",
        "en": "Fewer bits are not faster here (quiet measurements: even the best is {phrase} than fp32): this CPU has no fast unit for 16-bit multiplies, so PyTorch converts the numbers and computes. On a GPU with tensor cores it is the other way round.",
    },
    "lesson01.v_regimes_off": {
        "bn": "তিন দশার মাপ এই মেশিনে বন্ধ আছে, তাই কোনো দশার রায় নেই; চালাতে ওপরের সেলে RUN_REGIMES = True করো।",
        "en": "The three-regime measurements are off on this machine, so there is no regime verdict; to run them set RUN_REGIMES = True in the cell above.",
    },
    "lesson01.row_threads": {"bn": "{x} থ্রেড", "en": "{x} threads"},
    "lesson01.row_matmul": {"bn": "ম্যাট্রিক্স গুণ {x} ({device})", "en": "matmul {x} ({device})"},
    "lesson01.row_add": {"bn": "যোগ {x} উপাদান ({device})", "en": "add {x} elements ({device})"},
    "lesson01.row_stream": {"bn": "ব্যান্ডউইথের মাপ ({kernel}) {x} উপাদান ({device})", "en": "bandwidth {kernel} {x} elements ({device})"},
    "lesson01.row_overhead": {"bn": "প্রতি কলের খরচ, {ops}টি ছোট অপারেশন ({device})", "en": "per-call cost, {ops} tiny ops ({device})"},
    "lesson01.row_batch": {"bn": "batch {x} ({device})", "en": "batch {x} ({device})"},
    "lesson01.v_dtypes_off": {
        "bn": "তিন ডেটা টাইপের মাপ এই মেশিনে বন্ধ আছে; চালাতে ওপরের সেলে RUN_DTYPES = True করো।",
        "en": "The three-dtype measurement is off on this machine; to run it set RUN_DTYPES = True in the cell above.",
    },
}
