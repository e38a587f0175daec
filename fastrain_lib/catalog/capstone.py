"""Messages of the capstone (lesson 07): the Bengali corpus, the capstone run, its panel, benchmarks."""

MESSAGES = {
    # corpus
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
}
