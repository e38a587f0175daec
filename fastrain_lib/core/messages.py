"""Messages of the core modules: config, hardware, bench, plots, widgets, progress, setup."""

MESSAGES = {
    "core.verdict_noisy": {
        "bn": "এখানে কোনো কারণ বলা হচ্ছে না: এই সিদ্ধান্ত যে {total}টি মাপের ওপর দাঁড়িয়ে, তার {noisy}টি গোলমেলে (noisy) "
              "ছিল ({reasons}){rows}। ব্যস্ত মেশিনে সময়ের পার্থক্য অন্য কাজের ভারের, হার্ডওয়্যারের নিয়মের নয়। "
              "অন্য প্রোগ্রাম বন্ধ করে বা কম থ্রেডে ঘরটি আবার চালাও।",
        "en": "No cause is given here: {noisy} of the {total} measurements this conclusion stands on were noisy "
              "({reasons}){rows}. On a busy machine a difference in time comes from the other work, not from the hardware. "
              "Close other programs or use fewer threads and run the cell again.",
    },
    "core.verdict_noisy_rows": {"bn": "; গোলমেলে সারি: {rows}", "en": "; noisy rows: {rows}"},
    "core.verdict_quiet_rows": {"bn": "(✓ শান্ত মাপের ওপর)", "en": "(✓ on quiet measurements)"},
    "core.verdict_fewer_threads": {
        "bn": "(মাপা হয়েছে {threads}টি থ্রেডে, {wanted}টিতে নয়: বাকি কোর অন্য কাজে ব্যস্ত ছিল)",
        "en": "(measured with {threads} thread(s), not {wanted}: the other cores were busy)",
    },
    "core.noise_reason_load": {"bn": "মেশিনে অন্য কাজের ভার", "en": "other load on the machine"},
    "core.noise_reason_threads": {"bn": "কোরের চেয়ে বেশি থ্রেড", "en": "more threads than cores"},
    "core.noise_reason_spread": {"bn": "পুনরাবৃত্তিগুলো মেলেনি", "en": "the repeats disagree"},
    "core.noise_reason_recompile": {"bn": "মাপার মাঝে আবার কম্পাইল", "en": "recompiled while timed"},
    "core.noise_reason_rounds": {"bn": "রাউন্ডগুলো মেলেনি", "en": "the rounds disagree"},
    "core.yes": {"bn": "হ্যাঁ", "en": "yes"},
    "core.no": {"bn": "না", "en": "no"},
    "core.device": {"bn": "ডিভাইস", "en": "device"},
    "core.median_ms": {"bn": "মধ্যমা সময় (মিলিসেকেন্ড)", "en": "median time (ms)"},
    "core.size": {"bn": "আকার", "en": "size"},
    "core.dtype": {"bn": "ডেটা টাইপ", "en": "dtype"},
    "core.threads": {"bn": "থ্রেড", "en": "threads"},
    "core.batch_size": {"bn": "batch আকার", "en": "batch size"},
    "core.step": {"bn": "ধাপ", "en": "step"},
    "core.loss": {"bn": "লস", "en": "loss"},
    "core.samples_per_s": {"bn": "নমুনা/সেকেন্ড", "en": "samples/s"},
    "core.measured_here": {"bn": "এই মেশিনে মাপা", "en": "measured on this machine"},
    "core.reference": {"bn": "রেফারেন্স ফল: {hardware} ({date})", "en": "reference result: {hardware} ({date})"},
    # hardware
    # plots
    # experiment panel
    # setup cell / Colab
    # why a change slowed a step, measured with torch.profiler (launches.why_slower; lessons 04 and 07)
}


# Messages of fastrain_lib.core.errors: common PyTorch errors explained, with the fix.
MESSAGES.update({
    "errors.device": {
        "bn": "ডিভাইস মেলেনি (device mismatch): একটি অপারেশনের টেনসরগুলো ভিন্ন ভিন্ন ডিভাইসে আছে ({devices})। "
              "PyTorch নিজে থেকে ডেটা সরায় না — একটি গণনার সব টেনসর আর মডেলের ওজন একই ডিভাইসে থাকতে হয়। "
              "সমাধান: model = model.to(device) একবার, আর প্রতিটি batch-এ inputs = inputs.to(device) ও targets = targets.to(device)। "
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

# Said by several packages in the same words: one key.
MESSAGES.update({
    "core.compute": {"bn": "গণনা", "en": "compute"},
    "core.mode": {"bn": "মোড", "en": "mode"},
    "core.final_loss": {"bn": "শেষ লস", "en": "final loss"},
    "core.run": {"bn": "রান", "en": "run"},
    "core.matrix_size": {"bn": "ম্যাট্রিক্সের আকার n (n × n)", "en": "matrix size n (n × n)"},
    "core.ms_per_step": {"bn": "প্রতি ধাপে সময় (ms)", "en": "time per step (ms)"},
    "core.optimizer": {"bn": "অপটিমাইজার", "en": "optimizer"},
    "core.tokens_per_s": {"bn": "টোকেন/সেকেন্ড", "en": "tokens/s"},
    "core.median_step_ms": {"bn": "ধাপের মধ্যমা (ms)", "en": "median step (ms)"},
    "core.speedup": {"bn": "গতিবৃদ্ধি", "en": "speed-up"},
    "core.allreduce_ms": {"bn": "অল-রিডিউস (ms)", "en": "all-reduce (ms)"},
    "core.measured_step_ms": {"bn": "মাপা ধাপ (ms)", "en": "measured step (ms)"},
    "core.micro_batches": {"bn": "মাইক্রো-ব্যাচ (M)", "en": "micro-batches (M)"},
    "core.time_ms": {"bn": "সময় (ms)", "en": "time (ms)"},
    "core.forward": {"bn": "ফরওয়ার্ড", "en": "forward"},
    "core.backward": {"bn": "ব্যাকওয়ার্ড", "en": "backward"},
    "core.idle_share": {"bn": "মাপা অলস ভাগ", "en": "measured idle share"},
    "core.bubble_formula": {"bn": "সূত্র (K−1)/(M+K−1)", "en": "formula (K−1)/(M+K−1)"},
    "core.strategy": {"bn": "কৌশল", "en": "strategy"},
    "core.ddp": {"bn": "DDP", "en": "DDP"},
    "core.zero1": {"bn": "ZeRO-1", "en": "ZeRO-1"},
    "core.zero2": {"bn": "ZeRO-2", "en": "ZeRO-2"},
    "core.model_width": {"bn": "মডেলের প্রস্থ (width)", "en": "model width"},
    "core.rank": {"bn": "র‍্যাঙ্ক", "en": "rank"},
    "core.ddp_processes": {"bn": "DDP প্রসেস", "en": "DDP processes"},
})
