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
