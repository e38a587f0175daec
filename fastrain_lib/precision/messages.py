"""Messages of fastrain_lib.precision.amp (number formats, AMP helpers)."""

MESSAGES = {
    "precision.unknown": {
        "bn": "'{mode}' কোনো চেনা প্রিসিশন মোড নয়। এগুলোর একটি দাও: {allowed}। (fp32 = সাধারণ float32, tf32 = float32 কিন্তু GPU-তে TF32 ম্যাট্রিক্স গুণ, fp16/bf16 = autocast দিয়ে মিশ্র প্রিসিশন)",
        "en": "'{mode}' is not a known precision mode. Use one of: {allowed}. (fp32 = plain float32, tf32 = float32 with TF32 matmuls on a GPU, fp16/bf16 = mixed precision with autocast)",
    },
    "precision.no_bf16_gpu": {
        "bn": "এই GPU-তে ({gpu}, compute capability {cc}) দ্রুত bf16 নেই: bf16 টেনসর কোর আসে Ampere (8.0) থেকে, এখানে bf16 শুধু ধীর অনুকরণে চলে। এর বদলে precision='fp16' দাও — GradScaler নিজে থেকেই চালু হবে।",
        "en": "This GPU ({gpu}, compute capability {cc}) has no fast bf16: bf16 tensor cores arrived with Ampere (8.0); here bf16 is only emulated, slowly. Use precision='fp16' instead — GradScaler is switched on automatically.",
    },
    "precision.no_autocast": {
        "bn": "এই PyTorch ({torch}) '{device}' ডিভাইসে {mode} autocast চালাতে পারে না। অন্য মোড বেছে নাও (যেমন 'bf16' বা 'fp32'), অথবা PyTorch নতুন সংস্করণে আপগ্রেড করো (pip install -U torch)।",
        "en": "This PyTorch ({torch}) cannot run {mode} autocast on '{device}'. Pick another mode (e.g. 'bf16' or 'fp32'), or upgrade PyTorch (pip install -U torch).",
    },
    "precision.no_scaler": {
        "bn": "এই PyTorch ({torch})-এ '{device}' ডিভাইসের জন্য GradScaler নেই, তাই fp16 প্রশিক্ষণ নিরাপদ নয়। 'bf16' বা 'fp32' বেছে নাও, অথবা PyTorch আপগ্রেড করো।",
        "en": "This PyTorch ({torch}) has no GradScaler for '{device}', so fp16 training is not safe. Pick 'bf16' or 'fp32', or upgrade PyTorch.",
    },
}
