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
    "lesson01.progress_threads": {"bn": "থ্রেড বদলে মাপা হচ্ছে", "en": "measuring thread counts"},
    "lesson01.progress_matmul": {"bn": "ম্যাট্রিক্স গুণ মাপা হচ্ছে ({device})", "en": "measuring matmul ({device})"},
    "lesson01.progress_add": {"bn": "যোগ মাপা হচ্ছে ({device})", "en": "measuring addition ({device})"},
    "lesson01.progress_batch": {"bn": "batch আকার বদলে মাপা হচ্ছে ({device})", "en": "measuring batch sizes ({device})"},
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
    "lesson01.reference_run": {
        "bn": "রেফারেন্স: {run}",
        "en": "reference: {run}",
    },
}
