"""Messages of the capstone (lesson 07): the Bengali corpus, the capstone run, its panel, benchmarks."""

MESSAGES = {
    # corpus
}
MESSAGES.update({
    # capstone
    "capstone.bad_option": {
        "bn": "অচেনা সেটিং: {names}। যেগুলো বদলানো যায়: {allowed}।",
        "en": "Unknown setting: {names}. Settings you can change: {allowed}.",
    },
    "capstone.bad_optimizer": {
        "bn": "অপটিমাইজারের '{impl}' নামে কোনো রূপ নেই। এগুলোর একটি দাও: {allowed}।",
        "en": "There is no optimizer implementation called '{impl}'. Use one of: {allowed}.",
    },
    "capstone.bad_processes": {
        "bn": "প্রসেসের সংখ্যা {n} হতে পারে না: অন্তত 1 দাও।",
        "en": "The number of processes cannot be {n}: use at least 1.",
    },
    "capstone.fewer_threads": {
        "bn": "অন্য প্রোগ্রাম এখন কোর ব্যস্ত রেখেছে: প্রশিক্ষণ চলবে {threads}টি থ্রেডে ({wanted}টির বদলে) — খালি কোরের "
              "চেয়ে বেশি থ্রেড হলে প্রতিটি ধাপে থ্রেডগুলো একে অপরের জন্য অপেক্ষা করে (পাঠ 01 §7-এর ফাঁদ)।",
        "en": "Other programs are keeping cores busy now: training runs on {threads} thread(s) (instead of {wanted}) — "
              "with more threads than free cores the threads wait for each other at every step (lesson 01 §7's trap).",
    },
    "capstone.ddp_no_checkpoint": {
        "bn": "একাধিক প্রসেসের (DDP) রানে এই পাঠে চেকপয়েন্ট রাখা হয় না। checkpoint_dir বাদ দাও, অথবা processes=1 নাও।",
        "en": "Multi-process (DDP) runs in this lesson do not keep checkpoints. Drop checkpoint_dir, or use processes=1.",
    },
})
MESSAGES.update({
    # what a run measured now, and runs found on disk (issue 19: never a stale number)
    "capstone.nothing_measured": {
        "bn": "এই রানে নতুন কোনো ধাপ চলেনি (রানটি {date}-এ শেষ হয়েছিল), তাই মাপার মতো কিছু নেই।",
        "en": "No new step ran in this call (the run had finished on {date}), so there is nothing to record.",
    },
    "capstone.earlier_finished": {
        "bn": "আগের একটি রান পাওয়া গেছে ({folder}): শেষ হয়েছিল {date}-এ, {steps} ধাপ, {device} {precision}; তখন মাপা {tokens} টোকেন/সেকেন্ড। এটা আগের রানের মাপ, এখনকার নয়: নিচের রান নতুন ফোল্ডারে নতুন করে মাপবে।",
        "en": "An earlier run was found ({folder}): finished on {date}, {steps} steps, {device} {precision}; it measured {tokens} tokens/s then. That is the earlier run's number, not this one's: the run below measures afresh in a new folder.",
    },
    "capstone.earlier_unfinished": {
        "bn": "আগের একটি অসমাপ্ত রান পাওয়া গেছে (শুরু {date}, শেষ চেকপয়েন্ট ধাপ {step}-এ)। সেটাই চালিয়ে যেতে চাইলে RESUME_FOLDER = \"{folder}\" দাও।",
        "en": "An earlier unfinished run was found (started {date}, last checkpoint at step {step}). To continue it, set RESUME_FOLDER = \"{folder}\".",
    },
    "capstone.report_nothing_new": {
        "bn": "এই ফোল্ডারের রানটি {date}-এ শেষ হয়েছিল ({steps} ধাপ)। এখন কোনো ধাপ চলেনি, তাই এখনকার কোনো গতি নেই। মাপতে হলে নতুন ফোল্ডারে নতুন রান শুরু করো।",
        "en": "The run in this folder had finished on {date} ({steps} steps). No step ran now, so there is no speed measured now. Start a new run in a new folder to measure.",
    },
    "capstone.report_resumed": {
        "bn": "ধাপ {start}-এর চেকপয়েন্ট থেকে আবার শুরু হয়ে ধাপ {end} পর্যন্ত চলল: এখন {n}টি ধাপ প্রশিক্ষণ ও মাপা হলো।",
        "en": "Resumed from the checkpoint at step {start} and ran to step {end}: {n} steps were trained and measured now.",
    },
    "capstone.report_fresh": {
        "bn": "নতুন রান: এখন {n}টি ধাপ প্রশিক্ষণ ও মাপা হলো।",
        "en": "A fresh run: {n} steps were trained and measured now.",
    },
    "capstone.peak_measured_moves": {
        "bn": "MFU-র ভাজক সর্বোচ্চ ক্ষমতাটা (peak) এই মেশিনে প্রতিটি রানে আবার মাপা হয় (একটি ম্যাট্রিক্স গুণ)। মেশিন ব্যস্ত থাকলে "
              "সর্বোচ্চ ক্ষমতা আর টোকেন/সেকেন্ড দুটোই কমে, তাই দুই রানের MFU তুলনা করলে টোকেন/সেকেন্ড আর সর্বোচ্চ ক্ষমতা দুটোই পাশাপাশি দেখো।",
        "en": "The peak this MFU divides by is measured again on this machine in every run (a matmul). When the machine is "
              "busy both the peak and the tokens/s fall, so compare two runs' MFU only beside their tokens/s and peaks.",
    },
    "capstone.peak_datasheet_moves": {
        "bn": "MFU-র ভাজক সর্বোচ্চ ক্ষমতাটা (peak) ডেটাশিটের স্থির সংখ্যা, তাই দুই রানের MFU শুধু টোকেন/সেকেন্ডের সাথে বদলায়।",
        "en": "The peak this MFU divides by is the datasheet's fixed number, so between runs MFU moves only with tokens/s.",
    },
    "capstone.peak_unknown_moves": {
        "bn": "এই যন্ত্রের সর্বোচ্চ ক্ষমতা জানা নেই, তাই MFU দেখানো হলো না; রানগুলো টোকেন/সেকেন্ড দিয়ে তুলনা করো।",
        "en": "This device's peak is unknown, so no MFU is shown; compare runs by tokens/s.",
    },
    "capstone.mfu_against_tokens": {
        "bn": "আগের রানের তুলনায় MFU {mfu0:.1%} থেকে {mfu1:.1%} হয়েছে অথচ টোকেন/সেকেন্ড {tok0:,.0f} থেকে {tok1:,.0f}: "
              "দুটি উল্টো দিকে গেছে, কারণ এবার মাপা সর্বোচ্চ ক্ষমতা {peak1:,.1f} GFLOP/s, আগেরবার {peak0:,.1f} GFLOP/s। MFU বদলেছে সর্বোচ্চ ক্ষমতার জন্য, প্রশিক্ষণের জন্য নয় — রান দুটির তুলনা টোকেন/সেকেন্ডে।",
        "en": "Against the earlier run, MFU went from {mfu0:.1%} to {mfu1:.1%} while tokens/s went from {tok0:,.0f} to "
              "{tok1:,.0f}: opposite directions, because the peak measured this time is {peak1:,.1f} GFLOP/s against "
              "{peak0:,.1f} GFLOP/s before. The MFU moved with the peak, not the training — compare "
              "the two runs by tokens/s.",
    },
    "capstone.mfu_peak_moved": {
        "bn": "আগের রানের তুলনায় টোকেন/সেকেন্ড {tokens_ratio:.2f} গুণ, কিন্তু MFU {mfu_ratio:.2f} গুণ: মাঝের পার্থক্য সর্বোচ্চ ক্ষমতার "
              "({peak0:,.1f} থেকে {peak1:,.1f} GFLOP/s, আবার মাপা)। রান দুটির তুলনা টোকেন/সেকেন্ডে।",
        "en": "Against the earlier run tokens/s changed {tokens_ratio:.2f}x but MFU {mfu_ratio:.2f}x: the difference is the "
              "peak's ({peak0:,.1f} to {peak1:,.1f} GFLOP/s, measured again). Compare the two runs by tokens/s.",
    },
    "capstone.mfu_with_tokens": {
        "bn": "আগের রানের তুলনায় টোকেন/সেকেন্ড {tokens_ratio:.2f} গুণ, MFU-ও {mfu_ratio:.2f} গুণ: সর্বোচ্চ ক্ষমতা প্রায় একই "
              "({peak0:,.1f} বনাম {peak1:,.1f} GFLOP/s), তাই MFU প্রশিক্ষণের গতির সাথেই বদলেছে।",
        "en": "Against the earlier run tokens/s changed {tokens_ratio:.2f}x and MFU {mfu_ratio:.2f}x too: the peak is about "
              "the same ({peak0:,.1f} vs {peak1:,.1f} GFLOP/s), so MFU moved with the training speed.",
    },
    "capstone.report_speed": {
        "bn": "এখন মাপা: {tokens} টোকেন/সেকেন্ড | MFU: {mfu} ({peak}){status}",
        "en": "measured now: {tokens} tokens/s | MFU: {mfu} ({peak}){status}",
    },
    "capstone.status_quiet": {
        "bn": " — শান্ত মাপ ✓: প্রশিক্ষণ আর সর্বোচ্চ ক্ষমতা দুটোই {threads}টি থ্রেডে মাপা",
        "en": " — quiet ✓: training and peak both measured with {threads} thread(s)",
    },
    "capstone.status_noisy": {
        "bn": " — ⚠️ গোলমেলে মাপ ({which}): মেশিনে অন্য কাজ চলছিল, এই MFU বিশ্বাস কোরো না। অন্য প্রোগ্রাম বন্ধ করে "
              "ওপরের দুটি ঘর আবার চালাও",
        "en": " — ⚠️ noisy ({which}): other work was running, do not trust this MFU. Close other programs and run the "
              "two cells above again",
    },
    "capstone.status_quiet_datasheet": {"bn": " — শান্ত মাপ ✓", "en": " — quiet ✓"},
    "capstone.status_training": {"bn": "প্রশিক্ষণ", "en": "training"},
    "capstone.status_peak": {"bn": "সর্বোচ্চ ক্ষমতা", "en": "peak"},
})
MESSAGES.update({
    # lesson 07 panel
    "lesson07.panel_title": {
        "bn": "বাংলা GPT: কোর্সের সব সুইচ একসাথে — বদলাও, চালাও, তুলনা করো",
        "en": "Bengali GPT: every switch of the course — change, run, compare",
    },
    "lesson07.precision": {"bn": "প্রিসিশন (precision)", "en": "precision"},
    "lesson07.grad_accum": {"bn": "গ্রেডিয়েন্ট জমানো (accumulation)", "en": "gradient accumulation"},
    "lesson07.steps": {"bn": "ধাপ", "en": "steps"},
    "lesson07.opt_forloop": {"bn": "ফর-লুপ (for-loop)", "en": "for-loop"},
    "lesson07.norm_naive": {"bn": "সরল, নিজের লেখা (naive)", "en": "naive"},
    "lesson07.progress_switches": {"bn": "সুইচের লুপ চলছে", "en": "running the switch loop"},
    "lesson07.train_loss": {"bn": "প্রশিক্ষণের লস", "en": "training loss"},
    "lesson07.val_loss": {"bn": "যাচাইয়ের লস (validation)", "en": "validation loss"},
    "lesson07.loss_title": {"bn": "লস: {settings}", "en": "loss: {settings}"},
    "lesson07.speed_title": {"bn": "গতি: এই সেশনের রান (আর reference/)", "en": "speed: this session's runs (and reference/)"},
    "lesson07.reference_bar": {"bn": "রেফারেন্স ({precision}):\n{hardware}", "en": "reference ({precision}):\n{hardware}"},
    "lesson07.step_ms": {"bn": "প্রতি ধাপের মধ্যমা সময় (ms)", "en": "median step time (ms)"},
    "lesson07.peak": {"bn": "সর্বোচ্চ ক্ষমতা (peak)", "en": "peak"},
    "lesson07.memory_cuda_peak": {"bn": "GPU মেমরির সর্বোচ্চ ব্যবহার", "en": "peak GPU memory"},
    "lesson07.memory_cpu_rss": {"bn": "প্রসেসের মোট RAM (RSS)", "en": "process RAM (RSS)"},
    "lesson07.params": {"bn": "প্যারামিটার", "en": "parameters"},
    "lesson07.compile_s": {"bn": "কম্পাইলের সময় (সেকেন্ড, প্রথম ধাপে)", "en": "compile time (s, first step)"},
    "lesson07.sample_at": {
        "bn": "নমুনা, ধাপ {step} (আসল শব্দ {share:.0f}%)",
        "en": "sample at step {step} (real words {share:.0f}%)",
    },
    "lesson07.note_oversubscribed": {
        "bn": "{n}টি প্রসেস কিন্তু CPU কোর মাত্র {cores}টি: প্রসেসগুলো কোর ভাগাভাগি করে, তাই গতি বাড়ে না, উল্টে কমতে পারে।",
        "en": "{n} processes on only {cores} CPU cores: the processes share the cores, so speed does not grow and may drop.",
    },
    "lesson07.note_measured_peak": {
        "bn": "MFU-র ভাগফলে CPU-র 'সর্বোচ্চ ক্ষমতা' এই মেশিনেই মাপা (ডেটাশিট নয়); মেশিন ব্যস্ত থাকলে সেটা কম আসে, তাই MFU মাঝে মাঝে অস্বাভাবিক দেখাতে পারে।",
        "en": "For a CPU the peak in the MFU is measured on this machine (not a datasheet); on a busy machine it comes out low, so the MFU can look odd.",
    },
})
MESSAGES.update({
    "lesson07.ev_machine": {"bn": "মেশিন (কোথায় মাপা)", "en": "machine (where measured)"},
    "lesson07.ev_amp": {"bn": "AMP: fp32-এর তুলনায়", "en": "AMP vs fp32"},
    "lesson07.ev_optim": {"bn": "fused বনাম ফর-লুপ অপটিমাইজার", "en": "fused vs for-loop optimizer"},
    "lesson07.ev_layernorm": {"bn": "nn.LayerNorm বনাম নিজের হাতে লেখা সরল LayerNorm", "en": "nn.LayerNorm vs naive"},
    "lesson07.ev_compile": {"bn": "torch.compile বনাম eager", "en": "torch.compile vs eager"},
    "lesson07.ev_ddp": {"bn": "2 প্রসেসে DDP-র দক্ষতা", "en": "DDP efficiency, 2 processes"},
    "lesson07.here": {"bn": "এই মেশিন, এখন", "en": "this machine, now"},
})
MESSAGES.update({
})
MESSAGES.update({
    # lesson 07 exercise checks
    "lesson07.not_number": {"bn": "ফাংশনটি একটি সংখ্যা ফেরত দেয়নি (পেয়েছি {got})। MFU একটি ভগ্নাংশ, যেমন 0.35।",
                           "en": "The function did not return a number (got {got}). MFU is a fraction, e.g. 0.35."},
    "lesson07.mfu_percent": {"bn": "তুমি শতাংশ ফেরত দিয়েছ (×100)। এখানে 0 থেকে 1-এর ভগ্নাংশ চাই: 100 দিয়ে গুণ কোরো না।",
                            "en": "You returned a percentage (×100). A fraction between 0 and 1 is wanted: do not multiply by 100."},
    "lesson07.mfu_no_peak": {"bn": "তুমি শুধু অর্জিত FLOP/s দিয়েছ। MFU পেতে সেটাকে যন্ত্রের সর্বোচ্চ FLOP/s (peak) দিয়ে ভাগ করো।",
                            "en": "You returned the achieved FLOP/s only. Divide it by the device's peak FLOP/s to get MFU."},
    "lesson07.mfu_inverted": {"bn": "ভাগটা উল্টে গেছে: MFU = অর্জিত FLOP/s ÷ সর্বোচ্চ FLOP/s, উল্টোটা নয়।",
                             "en": "The division is upside down: MFU = achieved FLOP/s ÷ peak FLOP/s, not the other way."},
    "lesson07.mfu_wrong": {
        "bn": "টোকেন/সেকেন্ড={tokens}, FLOP/টোকেন={flops}, peak={peak} হলে উত্তর {expected:.4g} হওয়ার কথা, পেয়েছি {got:.4g}। সূত্র: টোকেন/সেকেন্ড × FLOP/টোকেন ÷ সর্বোচ্চ ক্ষমতা (peak)।",
        "en": "With tokens/s={tokens}, FLOPs/token={flops}, peak={peak} the answer should be {expected:.4g}, got {got:.4g}. Formula: tokens/s × FLOPs/token ÷ peak.",
    },
    "lesson07.repeat_differs": {
        "bn": "আগে যেমন ইনপুটে ঠিক উত্তর দিয়েছিলে, তেমন একটি ইনপুট অন্যভাবে (নতুন সংখ্যায়, অন্য টাইপে, বা আগে একটি স্পেস দিয়ে) "
              "আবার দিলে তোমার ফাংশন ফেরত দিল {got}, হওয়ার কথা {expected}। উত্তর শুধু ইনপুট থেকে হিসাব করো — যাচাইয়ের "
              "উদাহরণ বা ডাকার ক্রম মুখস্থ করে নয়।",
        "en": "Asked again for an input like ones you answered right, in another form (new numbers, another type, or "
              "after a space), your function returned {got}; expected {expected}. Compute the answer from the input "
              "alone — not from the check's examples or the order of the calls.",
    },
    "lesson07.normalized": {
        "bn": "{text} (NFD রূপে লেখা: ো = ে + া) থেকে তুমি ফেরত দিলে {got} — লেখাটা NFC-তে বদলে গেছে। কাজটা শুধু ঝুলন্ত "
              "চিহ্ন সরানো: বাকি অক্ষর যেমন আছে তেমন রাখো, unicodedata.normalize ডেকো না।",
        "en": "From {text} (written in NFD: ো = ে + া) you returned {got} — the text was changed to NFC. The task only "
              "removes dangling marks: leave every other character as it is, do not call unicodedata.normalize.",
    },
    "lesson07.not_text": {"bn": "ফাংশনটি লেখা (str) ফেরত দেয়নি, দিয়েছে {got}।", "en": "The function did not return text (str) but {got}."},
    "lesson07.removes_attached": {
        "bn": "'{text}' থেকে তুমি সব চিহ্ন মুছে ফেলেছ ('{got}')। শুধু সেই চিহ্ন সরাও যার আগে কোনো অক্ষর নেই (শুরুতে, স্পেস বা যতিচিহ্নের পরে); ক্ষ-র হসন্ত বা মা-র া থাকবে।",
        "en": "You removed every mark from '{text}' ('{got}'). Remove only marks with no letter before them (at the start, after a space or punctuation); the hasanta of ক্ষ or the া of মা stay.",
    },
    "lesson07.start_left": {
        "bn": "'{text}'-এর শুরুর চিহ্নটি রয়ে গেছে। লেখার একদম প্রথম অক্ষরটি চিহ্ন হলে সেটা সরাতে হবে।",
        "en": "The mark at the start of '{text}' is still there. If the very first character is a mark, remove it.",
    },
    "lesson07.after_space_left": {
        "bn": "'{text}'-এর উত্তর '{expected}' হওয়ার কথা, পেয়েছি '{got}'। স্পেস বা যতিচিহ্নের (।) পরের চিহ্নও ঝুলন্ত: আগের অক্ষরটি বাংলা বর্ণ বা চিহ্ন কিনা দেখো।",
        "en": "For '{text}' the answer should be '{expected}', got '{got}'. A mark after a space or punctuation (।) dangles too: check whether the previous character is a Bengali letter or mark.",
    },
    "lesson07.joiner_dropped": {
        "bn": "{text}-এর হসন্তটি তুমি বাদ দিয়েছ (পেয়েছি {got}, হওয়ার কথা {expected})। র‍্য-তে র-এর পরে একটি অদৃশ্য অক্ষর থাকে, ZWJ (zero width joiner, U+200D), তারপর হসন্ত: র + U+200D + ্ + য। ZWJ আর ZWNJ (U+200C) বর্ণ নয়, unicodedata.category-তে এরা 'Cf'; এদের চিহ্নের মতো ধরো: ZWJ-এর পরের হসন্ত জোড়া লাগানো, ঝুলন্ত নয়।",
        "en": "You removed the hasanta of {text} (got {got}, expected {expected}). In র‍্য an invisible character follows র: ZWJ (zero width joiner, U+200D), then the hasanta: র + U+200D + ্ + য. ZWJ and ZWNJ (U+200C) are not letters, their unicodedata.category is 'Cf'; treat them like marks: a hasanta after a ZWJ is attached, not dangling.",
    },
    "lesson07.joiner_left": {
        "bn": "{text}-এর উত্তর {expected} হওয়ার কথা, পেয়েছি {got}। লেখার শুরুতে বা স্পেসের পরে থাকা ZWJ (U+200D) বা ZWNJ (U+200C)-ও ঝুলন্ত: জোড়ার মতো কিছু নেই, আর তার পরের হসন্ত ফাঁকা বৃত্তে আঁকা হয়। যোজককেও চিহ্নের মতো বাদ দাও।",
        "en": "For {text} the answer should be {expected}, got {got}. A ZWJ (U+200D) or ZWNJ (U+200C) at the start or after a space dangles too: there is nothing to join, and a hasanta after it is drawn on a dotted circle. Drop a joiner like a mark.",
    },
})
MESSAGES.update({
    # lesson 07: the recipe of this machine, computed from this run's measurements (# VERDICT)
    "lesson07.verdict_best": {
        "bn": "এই মেশিনে সবচেয়ে বেশি কাজে দিল {name}: fp32 + ফর-লুপের চেয়ে {speedup:.2f}× ({tokens:,.0f} বনাম {base:,.0f} টোকেন/সেকেন্ড)। এখানে রেসিপির প্রথম ধাপ এটাই।",
        "en": "On this machine {name} helped most: {speedup:.2f}× the fp32 + for-loop baseline ({tokens:,.0f} vs {base:,.0f} tokens/s). Here it is the recipe's first step.",
    },
    "lesson07.verdict_none": {
        "bn": "এই মেশিনে কোনো সুইচই মাপের ওঠানামার বাইরে গতি বাড়ায়নি; সবচেয়ে ভালো {name}: {speedup:.2f}× ({tokens:,.0f} বনাম {base:,.0f} টোকেন/সেকেন্ড)। এখানে সুইচ চালু করার আগে বড় মডেলে বা বেশি ধাপে আবার মাপো।",
        "en": "On this machine no switch raised the speed beyond the noise; the best, {name}: {speedup:.2f}× ({tokens:,.0f} vs {base:,.0f} tokens/s). Measure again with a larger model or more steps before turning one on here.",
    },
    "lesson07.verdict_also": {
        "bn": "{name}-ও গতি বাড়াল: {speedup:.2f}× ({tokens:,.0f} টোকেন/সেকেন্ড)।",
        "en": "{name} helped too: {speedup:.2f}× ({tokens:,.0f} tokens/s).",
    },
    "lesson07.verdict_noise": {
        "bn": "{name}: {speedup:.2f}× — মাপের ওঠানামার মধ্যে, এখানে স্পষ্ট লাভ বা ক্ষতি নেই।",
        "en": "{name}: {speedup:.2f}× — within the noise, no clear gain or loss here.",
    },
    "lesson07.verdict_slower": {
        "bn": "{name} এখানে প্রশিক্ষণ ধীর করল: {speedup:.2f}× ({tokens:,.0f} বনাম {base:,.0f} টোকেন/সেকেন্ড)। এই মেশিনে, এই মডেলে এটা চালু রাখার কারণ নেই।",
        "en": "{name} slowed training here: {speedup:.2f}× ({tokens:,.0f} vs {base:,.0f} tokens/s). On this machine, for this model, there is no reason to turn it on.",
    },
    "lesson07.verdict_busy": {
        "bn": "{name}: {speedup:.2f}× — মাপার সময় মেশিনে অন্য কাজ চলছিল ({cores}টি কোরের {other_cores:.1f}টি জুড়ে), তাই এই সংখ্যা থেকে লাভ বা ক্ষতি বলা যায় না। অন্য প্রোগ্রাম বন্ধ করে তুলনার ঘরটি আবার চালাও।",
        "en": "{name}: {speedup:.2f}× — other work ran on the machine while this was measured ({other_cores:.1f} of its {cores} cores), so this number tells neither gain nor loss. Close other programs and run the comparison cell again.",
    },
    "lesson07.why_no_fast_format": {
        "bn": "কারণ: {device}-এ {fmt}-এর হার্ডওয়্যার নেই (CPU-তে avx512_bf16 বা AMX, GPU-তে টেনসর কোর), তাই {fmt}-এর গণনা ধীর পথে চলে আর রূপান্তরের খরচ যোগ হয়।",
        "en": "Why: {device} has no hardware for {fmt} (avx512_bf16 or AMX on a CPU, tensor cores on a GPU), so {fmt} arithmetic takes a slow path and the conversions add cost.",
    },
})
MESSAGES.update({
    # lesson 07: the comparison table and the closing recipe, both from this run's measurements
    "lesson07.cmp_switch": {"bn": "সুইচ", "en": "switch"},
    "lesson07.cmp_settings": {"bn": "প্রিসিশন + অপটিমাইজার", "en": "precision + optimizer"},
    "lesson07.cmp_speedup": {"bn": "fp32-এর তুলনায় গতিবৃদ্ধি", "en": "speed-up over fp32"},
    "lesson07.recipe_head": {
        "bn": "এই মেশিনের রেসিপি ({machine}), ওপরের তুলনায় এইমাত্র মাপা গতিবৃদ্ধি থেকে, বড় লাভ আগে:",
        "en": "The recipe of this machine ({machine}), from the speed-ups just measured above, largest first:",
    },
    "lesson07.recipe_head_none": {
        "bn": "এই মেশিনের রেসিপি ({machine}), ওপরের তুলনায় এইমাত্র মাপা গতিবৃদ্ধি থেকে: চালু করার মতো কোনো সুইচ এই রানে পাওয়া যায়নি।",
        "en": "The recipe of this machine ({machine}), from the speed-ups just measured above: this run found no switch to turn on.",
    },
    "lesson07.recipe_step": {
        "bn": "{n}) {name} চালু করো: {speedup:.2f}× ({tokens:,.0f} বনাম {base:,.0f} টোকেন/সেকেন্ড)",
        "en": "{n}) turn on {name}: {speedup:.2f}× ({tokens:,.0f} vs {base:,.0f} tokens/s)",
    },
    "lesson07.recipe_nothing": {
        "bn": "এখানে কোনো সুইচ মাপের ওঠানামার বাইরে গতি বাড়ায়নি: fp32 + ফর-লুপই রাখো, বড় মডেলে বা বেশি ধাপে আবার মাপো।",
        "en": "No switch raised the speed beyond the noise here: keep fp32 + for-loop, and measure again with a larger model or more steps.",
    },
    "lesson07.recipe_skip": {
        "bn": "এই মেশিনে চালু করে লাভ দেখা যায়নি: {names}।",
        "en": "No gain measured on this machine: {names}.",
    },
    "lesson07.recipe_busy": {
        "bn": "মাপার সময় মেশিন ব্যস্ত ছিল (অন্য কাজ {cores}টি কোরের {other:.1f}টি জুড়ে), তাই এগুলোর রায় দেওয়া গেল না: {names}। মেশিন ফাঁকা হলে তুলনার ঘরটি আবার চালাও।",
        "en": "The machine was busy while these were measured (other work on {other:.1f} of its {cores} cores), so they get no verdict: {names}. Run the comparison cell again when the machine is quiet.",
    },
    "lesson07.recipe_unclear_gain": {
        "bn": "এই রানে নিশ্চিত নয়: {names} — লাভটা এই রানের নিজের ওঠানামার (ধাপের সময়ের ছড়ানো, প্রায় {spread:.0%}) মধ্যে। "
              "তাই এখানে চালু করতেও বলা হলো না, বন্ধ রাখতেও নয়; বেশি ধাপে (বা ফাঁকা মেশিনে) আবার মাপলে বোঝা যাবে।",
        "en": "Not settled in this run: {names} — the gain lies within this run's own noise (step times spread about "
              "{spread:.0%}). So the recipe neither turns it on nor says to keep the for-loop; measure again with more "
              "steps (or on a quiet machine) to decide.",
    },
    "lesson07.recipe_unclear": {
        "bn": "মাপের ওঠানামার মধ্যে, লাভ বা ক্ষতি বলা যায় না: {names} (ধাপের সময়ের ছড়ানো প্রায় {spread:.0%})।",
        "en": "Within the noise, neither gain nor loss: {names} (step times spread about {spread:.0%}).",
    },
    "lesson07.recipe_slower": {"bn": "ধীর করল", "en": "slower"},
    "lesson07.no_earlier_run": {
        "bn": "তুলনার মতো আগের রান নেই (বা তার সর্বোচ্চ ক্ষমতা জানা নেই): নোটবুকটা আবার চালালে এখানে দুই রানের MFU, টোকেন/সেকেন্ড আর সর্বোচ্চ ক্ষমতা পাশাপাশি তুলনা হবে।",
        "en": "No earlier run to compare with (or its peak is unknown): run the notebook again and this compares the two runs' MFU, tokens/s and peaks side by side.",
    },
    "lesson07.nothing_to_profile": {
        "bn": "কোনো সুইচ মাপের ওঠানামার বাইরে ধীর করেনি, তাই প্রোফাইল করার কিছু নেই।",
        "en": "No switch slowed training beyond the noise, so there is nothing to profile.",
    },
    "lesson07.profiler_off": {
        "bn": "প্রোফাইলারের তুলনা (কোন অপারেটর ধীর হলো) এই CPU-তে বন্ধ আছে; চালাতে RUN_PROFILE = True করো।",
        "en": "The profiler comparison (which operator got slower) is off on this CPU; set RUN_PROFILE = True to run it.",
    },
})
