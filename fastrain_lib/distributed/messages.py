"""Messages of fastrain_lib.distributed (launcher, DDP worker, ring, pipeline)."""

MESSAGES = {
    "distributed.bad_world_size": {
        "bn": "প্রসেসের সংখ্যা (world_size) একটি ধনাত্মক পূর্ণসংখ্যা হতে হবে, পাওয়া গেল {value}। যেমন launch(fn, 2) লেখো।",
        "en": "The number of processes (world_size) must be a positive integer, got {value}. Write e.g. launch(fn, 2).",
    },
    "distributed.no_main_guard": {
        "bn": "{script} নতুন প্রসেস শুরু করে, কিন্তু তার কোড `if __name__ == \"__main__\":`-এর ভেতরে নেই। `spawn` পদ্ধতিতে "
              "(Windows-এ একমাত্র উপায়, macOS-এ ডিফল্ট) প্রতিটি নতুন প্রসেস স্ক্রিপ্টটি আবার import করে, তাই প্রসেস শুরু করার "
              "লাইনটি আবার চলত আর প্রতিটি কর্মী কোনো বার্তা ছাড়াই মারা যেত। স্ক্রিপ্টের শেষে প্রসেস শুরু করার কোড "
              "`if __name__ == \"__main__\":`-এর নিচে রাখো।",
        "en": "{script} starts new processes, but its code is not under `if __name__ == \"__main__\":`. With `spawn` (the only "
              "way on Windows, the default on macOS) every new process imports the script again, so the line that starts "
              "the processes would run again and every worker would die without a message. Put the code that starts "
              "the processes under `if __name__ == \"__main__\":` at the end of the script.",
    },
    "distributed.not_importable": {
        "bn": "'{name}' ফাংশনটি নোটবুকের সেলে বা অন্য ফাংশনের ভেতরে লেখা; নতুন প্রসেস তাকে খুঁজে পাবে না। "
              "কর্মী ফাংশনটি একটি .py মডিউলে রাখো (যেমন fastrain_lib.distributed.ddp.train_worker) আর সেখান থেকে import করো।",
        "en": "The function '{name}' is defined in a notebook cell or inside another function; new processes cannot "
              "find it. Put the worker in a .py module (e.g. fastrain_lib.distributed.ddp.train_worker) and import it.",
    },
    "distributed.worker_raised": {
        "bn": "র‍্যাঙ্ক {rank}-এর প্রসেসে ত্রুটি হয়েছে; বাকি প্রসেসগুলো থামিয়ে দেওয়া হয়েছে। সেই প্রসেসের ত্রুটির বিবরণ (traceback):\n{traceback}",
        "en": "The process of rank {rank} raised an error; the other processes were stopped. Its traceback:\n{traceback}",
    },
    "distributed.worker_died": {
        "bn": "র‍্যাঙ্ক {rank}-এর প্রসেস কোনো বার্তা না দিয়েই মারা গেছে (exit code {code}) — যেমন কেউ তাকে kill করেছে, "
              "মেমরি ফুরিয়েছে, বা segfault। বাকি প্রসেসগুলো থামিয়ে দেওয়া হয়েছে।",
        "en": "The process of rank {rank} died without a message (exit code {code}) — killed, out of memory, or a "
              "segfault. The other processes were stopped.",
    },
    "distributed.others_failed": {
        "bn": "(র‍্যাঙ্ক {ranks}-ও ত্রুটি দিয়েছে, সম্ভবত সঙ্গী প্রসেস হারিয়ে যাওয়ার কারণে।)",
        "en": "(ranks {ranks} also failed, probably because their peer went away.)",
    },
    "distributed.timeout": {
        "bn": "{seconds:.0f} সেকেন্ডেও কাজ শেষ হয়নি: র‍্যাঙ্ক {ranks} আটকে ছিল (কেউ হয়তো অন্যের জন্য চিরকাল অপেক্ষা করছিল)। "
              "সব প্রসেস বন্ধ করা হয়েছে। timeout_s বাড়াও, বা কর্মী ফাংশনে অসীম লুপ/মিল-না-থাকা send-recv খোঁজো।",
        "en": "Not finished within {seconds:.0f} s: ranks {ranks} were stuck (perhaps one waited forever for another). "
              "All processes were stopped. Raise timeout_s, or look for an endless loop or an unmatched send/recv.",
    },
    "distributed.bad_cfg": {
        "bn": "DDP কনফিগারেশনে অচেনা কী: {keys}। চেনা কী: {known}।",
        "en": "Unknown keys in the DDP configuration: {keys}. Known keys: {known}.",
    },
    "distributed.too_few_devices": {
        "bn": "ডিভাইসের তালিকা ({devices}) খালি বা লেয়ারের চেয়ে বেশি; অন্তত একটি ডিভাইস আর প্রতিটি ডিভাইসে অন্তত একটি লেয়ার দাও।",
        "en": "The device list ({devices}) is empty or longer than the layers; give at least one device and one layer per device.",
    },
    "distributed.pipeline_shape": {
        "bn": "পাইপলাইনে batch {batch}-কে {micro} মাইক্রো-ব্যাচে সমান ভাগ করা যায় না; batch যেন micro-batch সংখ্যার গুণিতক হয়।",
        "en": "The batch of {batch} cannot be split evenly into {micro} micro-batches; make the batch a multiple of it.",
    },
}
