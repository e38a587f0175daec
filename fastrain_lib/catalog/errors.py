"""Messages of fastrain_lib.errors: common PyTorch errors explained, with the fix."""

MESSAGES = {
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
}
