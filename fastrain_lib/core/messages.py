"""Messages of the core modules: config, hardware, bench, plots, widgets, progress, setup."""

MESSAGES = {
    "common.yes": {"bn": "হ্যাঁ", "en": "yes"},
    "common.no": {"bn": "না", "en": "no"},
    "common.device": {"bn": "ডিভাইস", "en": "device"},
    "common.median_ms": {"bn": "মধ্যমা সময় (মিলিসেকেন্ড)", "en": "median time (ms)"},
    "common.size": {"bn": "আকার", "en": "size"},
    "common.dtype": {"bn": "ডেটা টাইপ", "en": "dtype"},
    "common.threads": {"bn": "থ্রেড", "en": "threads"},
    "common.batch_size": {"bn": "batch আকার", "en": "batch size"},
    "common.step": {"bn": "ধাপ", "en": "step"},
    "common.loss": {"bn": "লস", "en": "loss"},
    "common.samples_per_s": {"bn": "নমুনা/সেকেন্ড", "en": "samples/s"},
    "common.measured_here": {"bn": "এই মেশিনে মাপা", "en": "measured on this machine"},
    "common.reference": {"bn": "রেফারেন্স ফল: {hardware} ({date})", "en": "reference result: {hardware} ({date})"},
    # hardware
    "hw.item": {"bn": "বিষয়", "en": "item"},
    "hw.value": {"bn": "মান", "en": "value"},
    "hw.cpu": {"bn": "CPU", "en": "CPU"},
    "hw.cores": {"bn": "কোর", "en": "cores"},
    "hw.torch": {"bn": "PyTorch সংস্করণ", "en": "PyTorch version"},
    "hw.cuda": {"bn": "CUDA সংস্করণ (PyTorch বিল্ড)", "en": "CUDA version (PyTorch build)"},
    "hw.none": {"bn": "নেই", "en": "none"},
    "hw.devices": {"bn": "ব্যবহারযোগ্য ডিভাইস", "en": "usable devices"},
    "hw.colab": {"bn": "Google Colab-এ চলছে?", "en": "running in Google Colab?"},
    "hw.gpu": {"bn": "GPU", "en": "GPU"},
    "hw.no_gpu": {"bn": "এই মেশিনে কোনো CUDA GPU পাওয়া যায়নি — সব কাজ CPU-তে চলবে", "en": "no CUDA GPU found on this machine — everything runs on the CPU"},
    "hw.gpu_memory": {"bn": "GPU মেমরি", "en": "GPU memory"},
    "hw.cc": {"bn": "কম্পিউট ক্যাপাবিলিটি (compute capability)", "en": "compute capability"},
    "hw.fp16_tc": {"bn": "fp16 টেনসর কোর আছে?", "en": "fp16 tensor cores?"},
    "hw.bf16_fast": {"bn": "দ্রুত bf16 আছে?", "en": "fast bf16?"},
    "hw.datasheet": {"bn": "ডেটাশিট", "en": "datasheet"},
    "hw.peak_datasheet": {"bn": "ডেটাশিট শীর্ষ গতি: {name} ({source})", "en": "datasheet peak: {name} ({source})"},
    "hw.peak_measured": {"bn": "এই মেশিনে মাপা শীর্ষ গতি ({dtype} matmul)", "en": "peak measured on this machine ({dtype} matmul)"},
    "hw.peak_unknown": {
        "bn": "'{name}' GPU-টির ডেটাশিট আমাদের তালিকায় নেই, তাই MFU অজানা থাকল (ভুল সংখ্যা দেখানোর চেয়ে ভালো)",
        "en": "the GPU '{name}' is not in our datasheet table, so MFU stays unknown (better than a wrong number)",
    },
    "reference.unnamed": {"bn": "নাম-না-জানা মেশিন", "en": "unnamed machine"},
    "hw.mfu_unknown": {"bn": "অজানা", "en": "unknown"},
    "hw.mfu_impossible": {
        "bn": "100%-এর বেশি — শীর্ষ গতি বা FLOP গণনায় ভুল, তাই দেখানো হলো না",
        "en": "above 100% — the peak or the FLOP count is wrong, so it is not shown",
    },
    "hw.device_missing": {
        "bn": "'{device}' ডিভাইসটি এই মেশিনে নেই। ব্যবহার করা যাবে: {available}। GPU না থাকলে 'cpu' বেছে নাও, অথবা Colab-এ Runtime → Change runtime type → GPU দাও।",
        "en": "device '{device}' is not available here. Usable: {available}. Without a GPU pick 'cpu', or in Colab choose Runtime → Change runtime type → GPU.",
    },
    # plots
    "plots.old_matplotlib": {
        "bn": "তোমার matplotlib {version} বাংলা যুক্তাক্ষর ঠিকমতো আঁকতে পারে না (3.11 বা নতুন লাগবে)। তাই প্লটের লেখা ইংরেজিতে দেখানো হবে। ঠিক করতে: pip install -U 'matplotlib>=3.11', তারপর কার্নেল রিস্টার্ট করো।",
        "en": "Your matplotlib {version} cannot shape Bengali conjuncts (3.11 or newer is needed), so plot text is drawn in English. To fix: pip install -U 'matplotlib>=3.11', then restart the kernel.",
    },
    # experiment panel
    "panel.run": {"bn": "চালাও", "en": "Run"},
    "panel.running": {"bn": "চলছে… মাপা হচ্ছে", "en": "running… measuring"},
    "panel.done": {"bn": "শেষ ({seconds:.1f} সেকেন্ড)", "en": "done ({seconds:.1f} s)"},
    "panel.cached": {"bn": "আগের ফল (এই সেটিং আগেই মাপা হয়েছে)", "en": "earlier result (this setting was measured before)"},
    "panel.failed": {"bn": "পরীক্ষাটি ব্যর্থ হয়েছে — নিচে কারণ দেখো", "en": "the experiment failed — see why below"},
    "panel.details": {"bn": "বিস্তারিত (traceback)", "en": "details (traceback)"},
    "panel.error": {
        "bn": "পরীক্ষা চালাতে গিয়ে সমস্যা: {kind}: {message}। সেটিং বদলে (যেমন ছোট আকার) আবার চালাও।",
        "en": "The experiment hit a problem: {kind}: {message}. Change a setting (e.g. a smaller size) and run again.",
    },
    "panel.save": {"bn": "ফল সংরক্ষণ", "en": "Save results"},
    "panel.save_name": {"bn": "তোমার নাম/মেশিন", "en": "your name/machine"},
    "panel.saved": {"bn": "সংরক্ষিত: {path}", "en": "saved: {path}"},
    "panel.nothing_to_save": {"bn": "আগে একবার চালাও, তারপর সংরক্ষণ করো।", "en": "Run it once first, then save."},
    "progress.working": {"bn": "কাজ চলছে", "en": "working"},
    # setup cell / Colab
    "setup.ready": {"bn": "প্রস্তুত: fastrain_lib {version}, PyTorch {torch}, ডিভাইস: {devices}, মোড: {mode}", "en": "ready: fastrain_lib {version}, PyTorch {torch}, devices: {devices}, mode: {mode}"},
    "setup.installing": {"bn": "Colab-এ দরকারি প্যাকেজ ইনস্টল হচ্ছে: {what}", "en": "installing what Colab lacks: {what}"},
    "setup.restart": {
        "bn": "⚠️ matplotlib আপগ্রেড হয়েছে ({old} → {new}), কিন্তু পুরোনো {old} আগেই মেমোরিতে চলছে: এভাবে চললে পরের প্রতিটি প্লট ভেঙে যেত। তাই রানটাইম এখন নিজেই রিস্টার্ট হচ্ছে। Colab \"session crashed\" বা \"restarted\" জাতীয় বার্তা দেখাতে পারে — ভয় নেই, কিছু হারায়নি; ইনস্টল করা প্যাকেজ থেকে যায়। তারপর ওপর থেকে আবার চালাও (Runtime → Run all); দ্বিতীয়বার আর রিস্টার্ট লাগবে না।",
        "en": "⚠️ matplotlib was upgraded ({old} → {new}), but the old {old} is already running in memory: every later plot would break. So the runtime restarts itself now. Colab may say \"session crashed\" or \"restarted\" — nothing is lost; installed packages stay. Then run again from the top (Runtime → Run all); no second restart will be needed.",
    },
    "setup.colab_installs": {
        "bn": "Colab-এ কোর্সটি নিজের লাইব্রেরি fastrain_lib বসায়, আর বাংলা লেখার জন্য matplotlib {matplotlib}; Colab-এর বাকি প্যাকেজ (ipywidgets, torch, ipykernel, numpy …) যেমন ছিল তেমনই থাকে।",
        "en": "On Colab the course adds its own library, fastrain_lib, and matplotlib {matplotlib} for Bengali text; Colab's other packages (ipywidgets, torch, ipykernel, numpy …) stay as they were.",
    },
    "setup.restart_stop": {
        "bn": "⛔ matplotlib-এর নতুন সংস্করণ ({new}) ডিস্কে আছে, কিন্তু এই কার্নেলে পুরোনোটা ({old}) আগেই চালু: এভাবে চললে পরের প্রতিটি প্লট ভেঙে যেত, তাই এখানে থামানো হলো। কার্নেল রিস্টার্ট করো (Colab: Runtime → Restart session; Jupyter: Kernel → Restart Kernel), তারপর ওপর থেকে আবার চালাও।",
        "en": "⛔ A newer matplotlib ({new}) is on disk, but this kernel already runs the old one ({old}): every later plot would break, so the run stops here. Restart the kernel (Colab: Runtime → Restart session; Jupyter: Kernel → Restart Kernel), then run again from the top.",
    },
    "setup.t4": {
        "bn": "এই GPU ({gpu}) fp16 টেনসর কোর চালায় কিন্তু দ্রুত bf16 নেই: মিশ্র প্রিসিশনে fp16 + GradScaler ব্যবহার করো।",
        "en": "This GPU ({gpu}) has fp16 tensor cores but no fast bf16: use fp16 + GradScaler for mixed precision.",
    },
    "setup.bf16": {"bn": "এই GPU ({gpu}) দ্রুত bf16 চালায়: মিশ্র প্রিসিশনে bf16 প্রথম পছন্দ।", "en": "This GPU ({gpu}) runs bf16 fast: bf16 is the first choice for mixed precision."},
    "install.failed": {
        "bn": "ইনস্টল ব্যর্থ হয়েছে: {what}। ইন্টারনেট সংযোগ ও ডিস্কের জায়গা দেখো, তারপর আবার চালাও। বিস্তারিত লগ: {log}",
        "en": "Install failed: {what}. Check the internet connection and disk space, then run again. Full log: {log}",
    },
    # why a change slowed a step, measured with torch.profiler (launches.why_slower; lessons 04 and 07)
    "profile.why_op_grew": {
        "bn": "কেন, torch.profiler দিয়ে এইমাত্র মাপা: {name}-এ সবচেয়ে বেশি বেড়েছে {op}-এর সময় — প্রতি ধাপে {before_ms:.2f} থেকে {after_ms:.2f} ms (সব অপারেটর মিলে {total_before_ms:.1f} থেকে {total_after_ms:.1f} ms)।",
        "en": "Why, measured just now with torch.profiler: with {name} the operator that grew most is {op} — {before_ms:.2f} to {after_ms:.2f} ms per step (all operators together {total_before_ms:.1f} to {total_after_ms:.1f} ms).",
    },
    "profile.not_reproduced": {
        "bn": "কেন, torch.profiler দিয়ে এইমাত্র মাপা: প্রোফাইলে {name}-এর অপারেটরগুলো ধীর হয়নি — সব অপারেটর মিলে {total_before_ms:.1f} থেকে {total_after_ms:.1f} ms প্রতি ধাপে। তাই ধীর হওয়ার কারণ অপারেটরগুলোর বাইরে (Python, অপেক্ষা), নয়তো মাপার সময় মেশিনে অন্য কাজ চলছিল: তুলনাটা আবার চালিয়ে দেখো।",
        "en": "Why, measured just now with torch.profiler: in the profile {name}'s operators did not get slower — all operators together {total_before_ms:.1f} to {total_after_ms:.1f} ms per step. So the slowdown is not inside the operators (Python, waiting), or other work disturbed the timing: run the comparison again.",
    },
    "profile.why_op_grew_mm_faster": {
        "bn": "কেন, torch.profiler দিয়ে এইমাত্র মাপা: {name}-এ ম্যাট্রিক্স গুণ আসলে দ্রুত হয়েছে ({mm_before_ms:.2f} থেকে {mm_after_ms:.2f} ms প্রতি ধাপে), কিন্তু {op}-এর সময় বেড়েছে {before_ms:.2f} থেকে {after_ms:.2f} ms — সব অপারেটর মিলে {total_before_ms:.1f} থেকে {total_after_ms:.1f} ms। লাভটা খেয়ে ফেলে এই একটি অপারেটরের ধীর {name} পথ।",
        "en": "Why, measured just now with torch.profiler: with {name} the matrix multiplies did get faster ({mm_before_ms:.2f} to {mm_after_ms:.2f} ms per step), but {op} grew from {before_ms:.2f} to {after_ms:.2f} ms — all operators together {total_before_ms:.1f} to {total_after_ms:.1f} ms. This one operator's slow {name} path eats the gain.",
    },
}


# Messages of fastrain_lib.core.errors: common PyTorch errors explained, with the fix.
MESSAGES.update({
    "errors.device": {
        "bn": "ডিভাইস মেলেনি (device mismatch): একটি অপারেশনের টেনসরগুলো ভিন্ন ভিন্ন ডিভাইসে আছে ({devices})। "
              "PyTorch নিজে থেকে ডেটা সরায় না — একটি গণনার সব টেনসর আর মডেলের ওজন একই ডিভাইসে থাকতে হয়। "
              "সমাধান: model = model.to(device) একবার, আর প্রতিটি batch-এ inputs, targets = inputs.to(device), targets.to(device)। "
              "কোনটি কোথায় আছে দেখতে x.device আর next(model.parameters()).device প্রিন্ট করো।",
        "en": "Device mismatch: the tensors of one operation live on different devices ({devices}). "
              "PyTorch never moves data by itself — all tensors of a computation and the model's weights must be on one device. "
              "Fix: model = model.to(device) once, and for every batch inputs, targets = inputs.to(device), targets.to(device). "
              "Print x.device and next(model.parameters()).device to see which is where.",
    },
    "errors.dtype": {
        "bn": "ডেটা টাইপ মেলেনি (dtype mismatch): একটি অপারেশনের টেনসরগুলোর ডেটা টাইপ আলাদা (যেমন float32 আর float64)। "
              "সমাধান: ইনপুটকে মডেলের টাইপে আনো, যেমন x = x.float() বা x.to(torch.float32); NumPy থেকে আসা ডেটা সাধারণত float64 হয়। "
              "CrossEntropyLoss-এর লক্ষ্য (target) হতে হয় পূর্ণসংখ্যা: targets.long()।",
        "en": "Dtype mismatch: the tensors of one operation have different data types (e.g. float32 and float64). "
              "Fix: convert the input to the model's type, e.g. x = x.float() or x.to(torch.float32); data from NumPy is usually float64. "
              "CrossEntropyLoss wants integer targets: targets.long().",
    },
    "errors.shape": {
        "bn": "আকার মেলেনি (shape mismatch): টেনসরের আকার (shape) অপারেশনের সাথে খাপ খায় না। "
              "ম্যাট্রিক্স গুণে প্রথমটির কলাম-সংখ্যা আর দ্বিতীয়টির সারি-সংখ্যা সমান হতে হয় — nn.Linear(in, out)-এর in যেন ইনপুটের শেষ মাত্রার সমান হয়। "
              "সমাধান: ত্রুটির লাইনের আগে x.shape প্রিন্ট করো; ছবি হলে x.flatten(1) দিয়ে চ্যাপ্টা করো, অথবা লেয়ারের আকার ঠিক করো।",
        "en": "Shape mismatch: a tensor's shape does not fit the operation. "
              "In a matrix multiply the first one's columns must equal the second one's rows — nn.Linear(in, out) needs in == the input's last dimension. "
              "Fix: print x.shape just before the failing line; flatten images with x.flatten(1), or fix the layer sizes.",
    },
    "errors.oom": {
        # Lesson 02 teaches the same: keep the per-step loss *without its graph* (loss.detach() on the
        # device, no sync) and call .item() rarely. `total += loss` keeps every step's graph alive.
        "bn": "মেমরি শেষ (out of memory): ডিভাইসে এই কাজের জন্য যথেষ্ট মেমরি নেই। "
              "সমাধান: batch আকার কমাও (যেমন অর্ধেক); মিশ্র প্রিসিশন (mixed precision) ব্যবহার করো; মূল্যায়নের সময় torch.no_grad() দাও; "
              "লস জমাও গ্রাফ ছাড়া — total += loss লিখলে প্রতিটি ধাপের পুরো গণনা-গ্রাফ (computation graph) মেমরিতে থেকে যায়; "
              "লেখো total += loss.detach() (ডিভাইসেই থাকে, অপেক্ষা করায় না), আর সংখ্যাটি দেখতে মাঝে মাঝে একবার .item() ডাকো; "
              "তারপর torch.cuda.empty_cache() চালিয়ে আবার চেষ্টা করো।",
        "en": "Out of memory: the device has too little memory for this work. "
              "Fix: lower the batch size (e.g. halve it); use mixed precision; wrap evaluation in torch.no_grad(); "
              "accumulate the loss without its graph — total += loss keeps every step's whole computation graph in memory; "
              "write total += loss.detach() (stays on the device, no waiting) and call .item() once in a while to see the number; "
              "then run torch.cuda.empty_cache() and try again.",
    },
    "errors.no_gpu": {
        "bn": "GPU পাওয়া যায়নি: কোড 'cuda' ডিভাইস চাইছে, কিন্তু এই মেশিনে CUDA GPU (বা তার ড্রাইভার) নেই। "
              "সমাধান: ডিভাইস বেছে নাও এভাবে — device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\") — "
              "তাহলে একই কোড GPU ছাড়াও চলবে; Colab-এ Runtime → Change runtime type → GPU দাও।",
        "en": "No GPU found: the code asks for a 'cuda' device, but this machine has no CUDA GPU (or no driver). "
              "Fix: choose the device as device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\") "
              "so the same code runs without a GPU; in Colab choose Runtime → Change runtime type → GPU.",
    },
    "errors.other": {
        "bn": "{kind} ধরনের ত্রুটি হয়েছে। এটি পরিচিত ডিভাইস/ডেটা টাইপ/আকার/মেমরির ত্রুটি নয়। "
              "বার্তার শেষ লাইনটি মন দিয়ে পড়ো, ত্রুটির লাইনের আগে টেনসরগুলোর .shape, .dtype আর .device প্রিন্ট করে দেখো।",
        "en": "An error of type {kind}. It is not one of the known device/dtype/shape/memory errors. "
              "Read the last line of the message carefully, and print the tensors' .shape, .dtype and .device just before the failing line.",
    },
    "errors.original": {"bn": "মূল ত্রুটি", "en": "original error"},
    "errors.bad_category": {
        "bn": "'{value}' চেনা ত্রুটির ধরন নয়; এগুলোর একটি দাও: {allowed}।",
        "en": "'{value}' is not a known error category; use one of: {allowed}.",
    },
    "errors.expected_error": {
        "bn": "এখানে '{category}' ধরনের ত্রুটি হওয়ার কথা ছিল, কিন্তু কোনো ত্রুটি হয়নি।",
        "en": "A '{category}' error was expected here, but nothing was raised.",
    },
})
