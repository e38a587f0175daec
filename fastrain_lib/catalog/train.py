"""Messages of fastrain_lib.train and fastrain_lib.checkpoint."""

MESSAGES = {
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
    "ckpt.bad_hash": {"bn": "চেকপয়েন্ট {path} নষ্ট: ফাইলের হ্যাশ (sha256) সংরক্ষিত হ্যাশের সাথে মেলে না", "en": "checkpoint {path} is corrupt: its sha256 does not match the saved hash"},
    "ckpt.unreadable": {"bn": "চেকপয়েন্ট {path} পড়া গেল না ({error}) — সম্ভবত লেখার মাঝপথে থেমে গিয়েছিল বা ফাইলটি কাটা পড়েছে", "en": "checkpoint {path} cannot be read ({error}) — probably cut short while writing or truncated"},
    "ckpt.not_ours": {"bn": "{path} fastrain-এর চেকপয়েন্ট নয়", "en": "{path} is not a fastrain checkpoint"},
    "ckpt.skipping": {"bn": "⚠️ {reason}। এটি বাদ দিয়ে আগের ভালো চেকপয়েন্ট থেকে শুরু করছি।", "en": "⚠️ {reason}. Skipping it and using the previous good checkpoint."},
}
