"""Messages shared by all exercise checks (fastrain_lib.checks)."""

MESSAGES = {
    "checks.correct": {"bn": "ঠিক হয়েছে! চমৎকার।", "en": "Correct! Well done."},
    "checks.not_done": {
        "bn": "এখনও উত্তর পাওয়া যায়নি: TODO-র জায়গায় তোমার কোড লেখো, তারপর এই সেল আবার চালাও।",
        "en": "No answer yet: write your code where the TODO is, then run this cell again.",
    },
    "checks.crashed": {
        "bn": "তোমার কোড চালাতে গিয়ে ত্রুটি হয়েছে: {error}। ত্রুটির বার্তাটি পড়ে কোড ঠিক করো।",
        "en": "Your code raised an error: {error}. Read the message and fix the code.",
    },
}
