"""Messages of fastrain_lib.data (offline datasets)."""

MESSAGES = {
    "data.bengali_name": {"bn": "বাংলা অঙ্ক (০-৯)", "en": "Bengali digits (০-৯)"},
    "data.bad_size": {
        "bn": "ডেটাসেটের আকার {size!r} চলবে না: 1 বা তার বেশি একটি পূর্ণসংখ্যা দাও (যেমন size=1000), অথবা size=None দিলে মোড অনুযায়ী আকার বেছে নেওয়া হবে।",
        "en": "Dataset size {size!r} will not do: give a whole number of 1 or more (e.g. size=1000), or size=None to pick a size by run mode.",
    },
    "data.mnist_missing": {
        "bn": "MNIST এই মেশিনে নেই এবং ডাউনলোডও করা গেল না (ইন্টারনেট নেই, অথবা ci মোড)। তাই এর বদলে একই আকারের বাংলা অঙ্কের ডেটাসেট (০-৯, 28×28) ব্যবহার করা হচ্ছে — পাঠের সব কোড একইভাবে চলবে।",
        "en": "MNIST is not on this machine and could not be downloaded (no internet, or ci mode), so the Bengali digits dataset of the same shape (০-৯, 28×28) is used instead — every cell of the lesson works the same way.",
    },
}


# Messages of fastrain_lib.train (fastrain_lib.checkpoint is lesson 07's cell: its sentences are inline).
MESSAGES.update({
    "train.progress": {"bn": "প্রশিক্ষণ ({precision})", "en": "training ({precision})"},
    "train.length_mismatch": {
        "bn": "ইনপুট ({inputs}টি) আর লক্ষ্য/লেবেল ({targets}টি) সংখ্যায় মেলে না। দুটো টেনসরের প্রথম মাত্রা সমান হতে হবে।",
        "en": "inputs ({inputs}) and targets ({targets}) differ in number. Both tensors need the same first dimension.",
    },
    "train.bad_time_window": {"bn": "time_window={time_window} চলবে না: একসাথে কয়টি ধাপ মাপা হবে, 1 বা তার বেশি দাও।", "en": "time_window={time_window} will not do: how many steps are timed together, give 1 or more."},
    "train.bad_batch_size": {"bn": "batch আকার {batch_size} চলবে না: 1 বা তার বেশি একটি পূর্ণসংখ্যা দাও।", "en": "batch size {batch_size} will not do: give an integer of 1 or more."},
    "train.bad_grad_accum": {"bn": "grad_accum={grad_accum} চলবে না: প্রতি অপটিমাইজার ধাপে কয়টি মাইক্রো-ব্যাচ, 1 বা তার বেশি দাও।", "en": "grad_accum={grad_accum} will not do: micro-batches per optimizer step, give 1 or more."},
    "train.bad_steps": {"bn": "steps={steps}, epochs={epochs}: অন্তত 1টি ধাপ বা 1টি ইপক দাও।", "en": "steps={steps}, epochs={epochs}: give at least 1 step or 1 epoch."},
    "train.no_batches": {"bn": "batches থেকে একটিও batch পাওয়া যায়নি। ডেটাসেট খালি কিনা, বা batch আকার ডেটার চেয়ে বড় কিনা (drop_last=True হলে) দেখো।", "en": "batches yielded no batch at all. Check whether the dataset is empty, or the batch size exceeds the data (with drop_last=True)."},
    "train.accum_too_large": {"bn": "grad_accum={grad_accum}, কিন্তু একটি ইপকে মাত্র {batches}টি batch: একটিও অপটিমাইজার ধাপ হয় না। grad_accum কমাও বা batch আকার ছোট করো।", "en": "grad_accum={grad_accum}, but an epoch has only {batches} batches: no optimizer step ever happens. Lower grad_accum or use smaller batches."},
    "train.resume_needs_dir": {"bn": "resume=True দিলে checkpoint_dir-ও দিতে হবে: কোন ফোল্ডার থেকে আবার শুরু করব?", "en": "resume=True needs checkpoint_dir: which folder should I resume from?"},
    "train.bad_optimizer": {
        "bn": "optimizer হিসেবে {kind} চিনি না। None (AdamW), একটি torch.optim.Optimizer, অথবা params → Optimizer ফাংশন দাও, যেমন lambda p: torch.optim.SGD(p, lr=0.1)।",
        "en": "{kind} is not an optimizer I know. Give None (AdamW), a torch.optim.Optimizer, or a function params → Optimizer, e.g. lambda p: torch.optim.SGD(p, lr=0.1).",
    },
})


# Messages of scripts/gpu_check.py (make gpu-check).
MESSAGES.update({
    "gpu_check.title": {"bn": "make gpu-check — শুরু {started}, সময়সীমা {budget} সেকেন্ড",
                       "en": "make gpu-check — started {started}, time budget {budget} s"},
    "gpu_check.where": {"bn": "সারাংশ ও লগ: {path}", "en": "summary and logs: {path}"},
    "gpu_check.no_cuda": {
        "bn": "এই মেশিনে CUDA GPU পাওয়া যায়নি (torch.cuda.is_available() = False)। GPU-ওয়ালা মেশিনে চালাও; শুধু ধাপগুলো দেখতে: make gpu-check DRY_RUN=1",
        "en": "No CUDA GPU on this machine (torch.cuda.is_available() = False). Run it on a GPU machine; to only list the steps: make gpu-check DRY_RUN=1",
    },
    "gpu_check.missing": {
        "bn": "যা নেই: {names}। ইন্টারনেটওয়ালা একটি মেশিনে (একই Python সংস্করণ ও প্ল্যাটফর্ম) চালাও: pip download {dists} -d wheels/ — তারপর wheels/ ফোল্ডারটি এখানে এনে: make gpu-check WHEELS=wheels/",
        "en": "Missing: {names}. On a machine with network (same Python version and platform) run: pip download {dists} -d wheels/ — then bring the wheels/ folder here and run: make gpu-check WHEELS=wheels/",
    },
    "gpu_check.datasheet_row": {"bn": "ডেটাশিট সারি: {key}", "en": "datasheet row: {key}"},
    "gpu_check.no_datasheet_row": {
        "bn": "এই GPU ডেটাশিট তালিকায় নেই: MFU অজানা দেখাবে (fastrain_lib/measure/datasheet.py-তে উৎসসহ একটি সারি যোগ করো)",
        "en": "this GPU is not in the datasheet table: MFU will show as unknown (add a row with its source to fastrain_lib/measure/datasheet.py)",
    },
    "gpu_check.timeout": {"bn": "{seconds} সেকেন্ডের সময়সীমা পেরিয়ে গেছে, থামানো হলো", "en": "stopped after its {seconds} s budget"},
    "gpu_check.no_time": {"bn": "সময় বাকি {seconds} সেকেন্ড, এই ধাপের অন্তত {needs} লাগে: চালানো হয়নি",
                         "en": "{seconds} s left, this step needs at least {needs} s: not run"},
    "gpu_check.after_preflight": {"bn": "প্রস্তুতি-পরীক্ষা ব্যর্থ, তাই চালানো হয়নি", "en": "not run: the preflight failed"},
    "gpu_check.apex_not_asked": {
        "bn": "Apex-এর চেকআউট দেওয়া হয়নি (--apex PATH / APEX=PATH), তাই Apex-এর সারিগুলো মাপা হয়নি",
        "en": "no Apex checkout given (--apex PATH / APEX=PATH), so the Apex rows were not measured",
    },
    "gpu_check.apex_bad_path": {"bn": "{path}-এ NVIDIA Apex-এর setup.py নেই", "en": "{path} holds no NVIDIA Apex setup.py"},
    "gpu_check.apex_timeout": {
        "bn": "Apex বিল্ড {seconds} সেকেন্ডে শেষ হয়নি: Apex-এর সারিগুলো মাপা হয়নি (বেশি সময় দিয়ে আবার চালাও: --budget)",
        "en": "the Apex build did not finish within {seconds} s: the Apex rows were not measured (run again with a larger --budget)",
    },
    "gpu_check.bench_files": {"bn": "নতুন ফলের ফাইল (reference/, গোলমেলে রান হলে results/benchmarks/): {files}",
                             "en": "new results files (reference/, or results/benchmarks/ for a noisy run): {files}"},
    "gpu_check.notebooks_count": {"bn": "{total}টির মধ্যে {passed}টি নোটবুক ঠিকঠাক চলেছে",
                                 "en": "{passed} of {total} notebooks ran cleanly"},
    "gpu_check.notebooks_planned": {"bn": "{total}টির মধ্যে {count}টি নোটবুক পরিকল্পনায়, একসাথে {jobs}টি করে, lab মোডে; বরাদ্দ মাপা সময়ের হিসাবের চেয়ে অন্তত {margin}% বেশি",
                                   "en": "{count} of {total} notebooks planned, {jobs} at a time, in lab mode; the slot at least {margin}% above this estimate from their measured times"},
    "gpu_check.notebooks_left_out": {"bn": "বাদ (প্রতিটির মাপা সময়সহ): {names} — যেকোনোটি যোগ করলে পরিকল্পনা {slot} সেকেন্ডের বরাদ্দ ছাড়িয়ে যেত (রাখা {count}টিতে লাগে {needs} সেকেন্ড, {margin}% বাড়তি ধরে)",
                                    "en": "left out (each with its measured time): {names} — any of them would take the plan past its {slot} s slot (the {count} kept need {needs} s with the {margin}% margin)"},
    "gpu_check.unfinished": {"bn": "সময়সীমার মধ্যে শেষ হয়নি (ভুল নয়; যে সেলে থামল): {names}",
                             "en": "not finished in time (not a failure; the cell it was in): {names}"},
    "gpu_check.cell": {"bn": "সেল {cell}", "en": "cell {cell}"},
    "gpu_check.not_run_time": {"bn": "সময় ফুরিয়ে যাওয়ায় চালানো হয়নি: {names}", "en": "not run (time budget): {names}"},
    "gpu_check.estimate": {"bn": "আনুমানিক {estimate} সেকেন্ড", "en": "estimate {estimate} s"},
    "gpu_check.plan_for": {"bn": "— ডেটাশিট অনুযায়ী {gpu}-এ পরিকল্পনা (মোট {total} সেকেন্ড):",
                          "en": "— plan on a {gpu} from the datasheet table (total {total} s):"},
    "gpu_check.not_asked": {"bn": "--steps-এ চাওয়া হয়নি", "en": "not asked for (--steps)"},
    "gpu_check.apex_skipped": {"bn": "Apex বিল্ড করা হয়নি, তাই Apex-এর সারিগুলো মাপা হবে না। যে পরীক্ষা ব্যর্থ:",
                              "en": "Apex was not built, so the Apex rows are not measured. The check that failed:"},
    "gpu_check.apex_no_nvcc": {"bn": "nvcc পাওয়া যায়নি: CUDA toolkit ইনস্টল করো (torch.version.cuda-র সংস্করণের), বা CUDA_HOME ঠিক করো",
                              "en": "nvcc not found: install the CUDA toolkit (torch.version.cuda's version), or set CUDA_HOME"},
    "gpu_check.apex_nvcc_mismatch": {
        "bn": "nvcc-এর CUDA {nvcc}, কিন্তু torch তৈরি CUDA {torch_cuda}-তে: Apex-এর setup.py তা মানে না। {torch_cuda}-এর toolkit ব্যবহার করো (CUDA_HOME)",
        "en": "nvcc is CUDA {nvcc}, but torch was built with CUDA {torch_cuda}: Apex's setup.py refuses that. Use the {torch_cuda} toolkit (CUDA_HOME)",
    },
    "gpu_check.apex_no_header": {"bn": "{header} পাওয়া যায়নি (খোঁজা হয়েছে: {dirs}): CUDA toolkit-এর পুরো include ফোল্ডার দরকার",
                                "en": "{header} not found (looked in: {dirs}): the CUDA toolkit's full include folder is needed"},
    "gpu_check.apex_no_ninja": {"bn": "ninja নেই: ninja ছাড়া extension-গুলো একটার পর একটা কম্পাইল হয়। pip install ninja (বা WHEELS=)",
                               "en": "ninja is missing: without it the extensions compile one file after another. pip install ninja (or WHEELS=)"},
    "gpu_check.apex_arch": {"bn": "এই GPU-র আর্কিটেকচার {arch} এই torch-এর তালিকায় নেই ({built})",
                           "en": "this GPU's architecture {arch} is not in this torch's list ({built})"},
    "gpu_check.apex_no_sources": {"bn": "{path}-এ {name}-এর উৎস ফাইল (csrc/) নেই", "en": "{path} holds no sources of {name} (csrc/)"},
})


# Lesson 04's exercise, the Triton softmax timing cell (kept here with gpu-check's keys: issue 26).
MESSAGES.update({
})

# Said by this package's code (moved from fastrain_lib/fused/messages.py).
MESSAGES.update({
    "gpt.bad_heads": {
        "bn": "n_embd ({n_embd}) কে n_head ({n_head}) দিয়ে নিঃশেষে ভাগ করা যায় না: প্রতিটি হেড সমান ভাগ পায়। যেমন n_embd=64 হলে n_head=2, 4 বা 8 দাও।",
        "en": "n_embd ({n_embd}) is not divisible by n_head ({n_head}): every head gets an equal share. E.g. with n_embd=64 use n_head=2, 4 or 8.",
    },
    "gpt.too_long": {
        "bn": "ইনপুটের দৈর্ঘ্য {T}, কিন্তু মডেল সর্বোচ্চ block_size={block_size} টোকেন দেখতে পারে। ইনপুট ছোট করো, বা বড় block_size দিয়ে মডেল বানাও।",
        "en": "The input has {T} tokens but the model sees at most block_size={block_size}. Shorten the input or build the model with a larger block_size.",
    },
})

# Said by this package's code (moved from fastrain_lib/lessons/l07_capstone/messages.py).
MESSAGES.update({
    "corpus.unknown_chars": {
        "bn": "এই অক্ষরগুলো শব্দভান্ডারে (vocabulary) নেই: {chars}। শুধু কর্পাসে থাকা বাংলা অক্ষর দিয়ে লেখা শুরু করো।",
        "en": "These characters are not in the vocabulary: {chars}. Start from Bengali characters that occur in the corpus.",
    },
    "corpus.too_small": {
        "bn": "'{split}' অংশে মাত্র {n}টি অক্ষর, কিন্তু একটি ব্লকেই {block}টি লাগে। block_size ছোট করো, অথবা কর্পাস ফোল্ডারে আরও বাংলা .txt ফাইল রাখো।",
        "en": "The '{split}' split has only {n} characters, but one block needs {block}. Use a smaller block_size, or put more Bengali .txt files in the corpus folder.",
    },
    "corpus.empty": {
        "bn": "কোনো বাংলা লেখা পাওয়া যায়নি। {folder} ফোল্ডারে UTF-8 এনকোডিংয়ে বাংলা .txt ফাইল রাখো, তারপর আবার চালাও।",
        "en": "No Bengali text was found. Put Bengali .txt files (UTF-8) in {folder}, then run again.",
    },
})

# Said by this package's code (moved from fastrain_lib/ui/messages.py).
MESSAGES.update({
    "dashboard.title": {"bn": "fastrain — সব পরীক্ষা এক জায়গায়", "en": "fastrain — every experiment in one place"},
    "dashboard.subtitle": {
        "bn": "একটি ট্যাব বেছে নাও, নিয়ন্ত্রণ বদলাও, তারপর চালাও। সব সংখ্যা এই মেশিনে এখনই মাপা; reference/ ফল দেখালে মেশিনের নাম লেখা থাকে।",
        "en": "Pick a tab, change a control, then press Run. Every number is measured on this machine now; reference/ results carry their machine's name.",
    },
    "dashboard.overlay": {"bn": "reference/ ফলও দেখাও (অন্য হার্ডওয়্যার)", "en": "also show reference/ results (other hardware)"},
    "dashboard.overlay_tip": {
        "bn": "বেঞ্চমার্ক স্ক্রিপ্ট অন্য মেশিনে যা মেপেছে, মেশিনের নামসহ",
        "en": "what the benchmark scripts measured on other machines, with each machine's name",
    },
    "dashboard.no_reference": {
        "bn": "reference/ ফোল্ডারে এখনো কোনো মাপা ফল নেই। GPU-ওয়ালা মেশিনে `make bench` চালিয়ে ফলের JSON ফাইল reference/-এ রাখো, তখন এখানে মেশিনের নামসহ দেখা যাবে।",
        "en": "reference/ holds no measured results yet. Run `make bench` on a machine with a GPU and put its JSON files in reference/; they will appear here with the machine's name.",
    },
    "dashboard.no_reference_here": {
        "bn": "reference/-এ ঠিক এই পরীক্ষার ফল নেই; নিচে reference/-এর সব ফল, মেশিনের নামসহ।",
        "en": "reference/ has no results for exactly this experiment; below are all of reference/'s results, with their machines.",
    },
    "dashboard.ref_title": {"bn": "reference/: অন্য মেশিনে মাপা (এখানে নয়)", "en": "reference/: measured on other machines (not here)"},
    "dashboard.experiment": {"bn": "পরীক্ষা", "en": "experiment"},
    "dashboard.date": {"bn": "তারিখ", "en": "date"},
    "dashboard.broken": {
        "bn": "পাঠ {lesson}-এর প্যানেল তৈরি করা গেল না: {error}। নোটবুকটি খুলে প্রথম থেকে চালিয়ে দেখো কোথায় সমস্যা।",
        "en": "Lesson {lesson}'s panel could not be built: {error}. Open its notebook and run it from the top to see what is wrong.",
    },
})


# Messages of fastrain_lib.setup_env (the setup cell at the top of every notebook).
MESSAGES.update({
    "setup_env.ready": {"bn": "প্রস্তুত: fastrain_lib {version}, PyTorch {torch}, ডিভাইস: {devices}, মোড: {mode}", "en": "ready: fastrain_lib {version}, PyTorch {torch}, devices: {devices}, mode: {mode}"},
    "setup_env.installing": {"bn": "Colab-এ দরকারি প্যাকেজ ইনস্টল হচ্ছে: {what}", "en": "installing what Colab lacks: {what}"},
    "setup_env.restart": {
        "bn": "⚠️ matplotlib আপগ্রেড হয়েছে ({old} → {new}), কিন্তু পুরোনো {old} আগেই মেমোরিতে চলছে: এভাবে চললে পরের প্রতিটি প্লট ভেঙে যেত। তাই রানটাইম এখন নিজেই রিস্টার্ট হচ্ছে। Colab \"session crashed\" বা \"restarted\" জাতীয় বার্তা দেখাতে পারে — ভয় নেই, কিছু হারায়নি; ইনস্টল করা প্যাকেজ থেকে যায়। তারপর ওপর থেকে আবার চালাও (Runtime → Run all); দ্বিতীয়বার আর রিস্টার্ট লাগবে না।",
        "en": "⚠️ matplotlib was upgraded ({old} → {new}), but the old {old} is already running in memory: every later plot would break. So the runtime restarts itself now. Colab may say \"session crashed\" or \"restarted\" — nothing is lost; installed packages stay. Then run again from the top (Runtime → Run all); no second restart will be needed.",
    },
    "setup_env.colab_installs": {
        "bn": "Colab-এ কোর্সটি নিজের লাইব্রেরি fastrain_lib বসায়, আর বাংলা লেখার জন্য matplotlib {matplotlib}; Colab-এর বাকি প্যাকেজ (ipywidgets, torch, ipykernel, numpy …) যেমন ছিল তেমনই থাকে।",
        "en": "On Colab the course adds its own library, fastrain_lib, and matplotlib {matplotlib} for Bengali text; Colab's other packages (ipywidgets, torch, ipykernel, numpy …) stay as they were.",
    },
    "setup_env.restart_stop": {
        "bn": "⛔ matplotlib-এর নতুন সংস্করণ ({new}) ডিস্কে আছে, কিন্তু এই কার্নেলে পুরোনোটা ({old}) আগেই চালু: এভাবে চললে পরের প্রতিটি প্লট ভেঙে যেত, তাই এখানে থামানো হলো। কার্নেল রিস্টার্ট করো (Colab: Runtime → Restart session; Jupyter: Kernel → Restart Kernel), তারপর ওপর থেকে আবার চালাও।",
        "en": "⛔ A newer matplotlib ({new}) is on disk, but this kernel already runs the old one ({old}): every later plot would break, so the run stops here. Restart the kernel (Colab: Runtime → Restart session; Jupyter: Kernel → Restart Kernel), then run again from the top.",
    },
    "setup_env.t4": {
        "bn": "এই GPU ({gpu}) fp16 টেনসর কোর চালায় কিন্তু দ্রুত bf16 নেই: মিশ্র প্রিসিশনে fp16 + GradScaler ব্যবহার করো।",
        "en": "This GPU ({gpu}) has fp16 tensor cores but no fast bf16: use fp16 + GradScaler for mixed precision.",
    },
    "setup_env.bf16": {"bn": "এই GPU ({gpu}) দ্রুত bf16 চালায়: মিশ্র প্রিসিশনে bf16 প্রথম পছন্দ।", "en": "This GPU ({gpu}) runs bf16 fast: bf16 is the first choice for mixed precision."},
    "setup_env.install_failed": {
        "bn": "ইনস্টল ব্যর্থ হয়েছে: {what}। ইন্টারনেট সংযোগ ও ডিস্কের জায়গা দেখো, তারপর আবার চালাও। বিস্তারিত লগ: {log}",
        "en": "Install failed: {what}. Check the internet connection and disk space, then run again. Full log: {log}",
    },
})
