"""Messages of fastrain_lib.async_sgd (parameter-server simulator) and fastrain_lib.hogwild."""

MESSAGES = {
    # errors
    "async.bad_mode": {
        "bn": "'{mode}' চেনা মোড নয়। এগুলোর একটি দাও: {modes}।",
        "en": "'{mode}' is not a known mode. Use one of: {modes}.",
    },
    "async.bad_workers": {
        "bn": "কর্মীর সংখ্যা ({workers}) অন্তত 1 হতে হবে, পূর্ণসংখ্যায়।",
        "en": "The number of workers ({workers}) must be a whole number, at least 1.",
    },
    "async.bad_backup": {
        "bn": "ব্যাকআপ কর্মী {backup} জন, কিন্তু মোট কর্মী {workers} জন: ব্যাকআপ 0 থেকে কর্মী−1 এর মধ্যে রাখো (অন্তত একজনের গ্রেডিয়েন্ট তো লাগবে)।",
        "en": "{backup} backup workers out of {workers}: keep backups between 0 and workers−1 (at least one gradient is needed).",
    },
    "async.bad_prob": {
        "bn": "ধীর কর্মীর সম্ভাবনা ({prob}) 0 থেকে 1-এর মধ্যে হতে হবে।",
        "en": "The straggler probability ({prob}) must be between 0 and 1.",
    },
    "async.bad_speeds": {
        "bn": "speeds-এ ঠিক {workers}টি ধনাত্মক সংখ্যা দাও, প্রতি কর্মীর জন্য একটি।",
        "en": "Give exactly {workers} positive numbers in speeds, one per worker.",
    },
    "async.bad_numbers": {
        "bn": "শেখার হার, গ্রেডিয়েন্টের সংখ্যা আর batch আকার ধনাত্মক হতে হবে; staleness-এর সীমা 0 বা তার বেশি।",
        "en": "Learning rate, number of gradients and batch size must be positive; the staleness bound 0 or more.",
    },
    "async.bad_problem": {
        "bn": "'{kind}' নামে কোনো সমস্যা নেই: 'digits' বা 'blobs' দাও।",
        "en": "There is no problem called '{kind}': use 'digits' or 'blobs'.",
    },
    # modes
    "async.mode_sync": {"bn": "সিঙ্ক্রোনাস", "en": "synchronous"},
    "async.mode_backup": {"bn": "ব্যাকআপসহ সিঙ্ক্রোনাস", "en": "sync + backup"},
    "async.mode_async": {"bn": "অ্যাসিঙ্ক্রোনাস", "en": "asynchronous"},
    "async.mode_ssp": {"bn": "সীমিত পুরোনোত্ব (SSP)", "en": "bounded staleness (SSP)"},
    # plots
    "async.worker": {"bn": "কর্মী {i}", "en": "worker {i}"},
    "async.server": {"bn": "সার্ভার", "en": "server"},
    "async.sim_time": {"bn": "সিমুলেটেড সময় (একক: একটি সাধারণ ধাপ)", "en": "simulated time (unit: one normal step)"},
    "async.applied": {"bn": "প্রয়োগ করা গ্রেডিয়েন্ট (batch)", "en": "gradients applied (batches)"},
    "async.eval_loss": {"bn": "লস (মূল্যায়ন সেট)", "en": "loss (evaluation set)"},
    "async.staleness": {"bn": "পুরোনোত্ব (staleness): কত আপডেট পুরোনো", "en": "staleness (updates behind)"},
    "async.fraction": {"bn": "গ্রেডিয়েন্টের ভাগ", "en": "fraction of gradients"},
    "async.staleness_title": {"bn": "প্রয়োগ করা গ্রেডিয়েন্টের পুরোনোত্ব", "en": "staleness of applied gradients"},
    "async.timeline_title": {"bn": "সময়রেখা: {mode}", "en": "timeline: {mode}"},
    "async.kind_compute": {"bn": "গণনা", "en": "compute"},
    "async.kind_straggle": {"bn": "দেরি (ধীর কর্মী)", "en": "delay (straggler)"},
    "async.kind_wait": {"bn": "অপেক্ষা", "en": "waiting"},
    "async.kind_dropped": {"bn": "বাতিল", "en": "dropped"},
    "async.kind_update": {"bn": "সার্ভারের আপডেট", "en": "server update"},
    # tables
    "async.col_mode": {"bn": "মোড", "en": "mode"},
    "async.col_time": {"bn": "সিমুলেটেড সময়", "en": "simulated time"},
    "async.col_updates": {"bn": "সার্ভার আপডেট", "en": "server updates"},
    "async.col_loss": {"bn": "শেষ লস", "en": "final loss"},
    "async.col_acc": {"bn": "সঠিকতা", "en": "accuracy"},
    "async.col_stale_mean": {"bn": "গড় পুরোনোত্ব", "en": "mean staleness"},
    "async.col_stale_max": {"bn": "সর্বোচ্চ পুরোনোত্ব", "en": "max staleness"},
    "async.col_dropped": {"bn": "বাতিল গ্রেডিয়েন্ট", "en": "dropped gradients"},
    "async.diverged": {"bn": "বিচ্যুত (diverged)", "en": "diverged"},
    # hogwild (real processes)
    "hogwild.timeout": {
        "bn": "Hogwild কর্মী {seconds:.0f} সেকেন্ডেও শেষ হয়নি; প্রসেসগুলো বন্ধ করা হলো। ধাপ কমাও বা timeout_s বাড়াও।",
        "en": "Hogwild workers did not finish within {seconds:.0f} s; the processes were stopped. Use fewer steps or a larger timeout_s.",
    },
    "hogwild.worker_failed": {
        "bn": "Hogwild কর্মী {rank}-এ ত্রুটি হয়েছে:\n{error}",
        "en": "Hogwild worker {rank} failed:\n{error}",
    },
    "hogwild.bad_workers": {
        "bn": "কর্মীর সংখ্যা ({workers}) অন্তত 1 হতে হবে।",
        "en": "The number of workers ({workers}) must be at least 1.",
    },
    "hogwild.bad_lock": {
        "bn": "lock={lock!r} চেনা নয়: False (লক ছাড়া), 'update' (শুধু লেখার সময় লক) বা 'step' (পুরো ধাপ লকের ভেতরে) দাও।",
        "en": "lock={lock!r} is not known: use False (lock-free), 'update' (lock only the write) or 'step' (the whole step under the lock).",
    },
    "hogwild.lock_free": {"bn": "Hogwild (লক ছাড়া)", "en": "Hogwild (lock-free)"},
    "hogwild.locked": {"bn": "লক: শুধু লেখা", "en": "lock: write only"},
    "hogwild.locked_step": {"bn": "লক: পুরো ধাপ", "en": "lock: whole step"},
    "hogwild.single": {"bn": "একটি প্রসেস", "en": "one process"},
    "hogwild.ddp": {"bn": "সিঙ্ক্রোনাস DDP", "en": "synchronous DDP"},
    "hogwild.batch_loss": {"bn": "batch-এর লস (চলমান গড়)", "en": "batch loss (running mean)"},
    "hogwild.col_run": {"bn": "রান", "en": "run"},
    "hogwild.col_steps": {"bn": "মোট ধাপ", "en": "total steps"},
    "hogwild.col_train": {"bn": "প্রশিক্ষণের সময় (সে.)", "en": "training time (s)"},
    "hogwild.col_startup": {"bn": "প্রসেস চালুর সময় (সে.)", "en": "start-up (s)"},
    "hogwild.col_samples": {"bn": "নমুনা/সেকেন্ড", "en": "samples/s"},
    "hogwild.col_acc": {"bn": "শেষ সঠিকতা", "en": "final accuracy"},
    "hogwild.col_time_to": {"bn": "লস {target:.3f}-এ পৌঁছানোর সময় (সে.)", "en": "time to loss {target:.3f} (s)"},
    "hogwild.wall_time": {"bn": "আসল সময় (সেকেন্ড)", "en": "wall-clock time (s)"},
    "hogwild.loss_title": {"bn": "আসল প্রসেসে প্রশিক্ষণ: লস বনাম সময়", "en": "training in real processes: loss vs time"},
}
