"""Messages of the instructor dashboard (make demo)."""

MESSAGES = {
    "dash.title": {"bn": "fastrain — সব পরীক্ষা এক জায়গায়", "en": "fastrain — every experiment in one place"},
    "dash.subtitle": {
        "bn": "একটি ট্যাব বেছে নাও, নিয়ন্ত্রণ বদলাও, তারপর চালাও। সব সংখ্যা এই মেশিনে এখনই মাপা; reference/ ফল দেখালে মেশিনের নাম লেখা থাকে।",
        "en": "Pick a tab, change a control, then press Run. Every number is measured on this machine now; reference/ results carry their machine's name.",
    },
    "dash.overlay": {"bn": "reference/ ফলও দেখাও (অন্য হার্ডওয়্যার)", "en": "also show reference/ results (other hardware)"},
    "dash.overlay_tip": {
        "bn": "বেঞ্চমার্ক স্ক্রিপ্ট অন্য মেশিনে যা মেপেছে, মেশিনের নামসহ",
        "en": "what the benchmark scripts measured on other machines, with each machine's name",
    },
    "dash.no_reference": {
        "bn": "reference/ ফোল্ডারে এখনো কোনো মাপা ফল নেই। GPU-ওয়ালা মেশিনে `make bench` চালিয়ে ফলের JSON ফাইল reference/-এ রাখো, তখন এখানে মেশিনের নামসহ দেখা যাবে।",
        "en": "reference/ holds no measured results yet. Run `make bench` on a machine with a GPU and put its JSON files in reference/; they will appear here with the machine's name.",
    },
    "dash.no_reference_here": {
        "bn": "reference/-এ ঠিক এই পরীক্ষার ফল নেই; নিচে reference/-এর সব ফল, মেশিনের নামসহ।",
        "en": "reference/ has no results for exactly this experiment; below are all of reference/'s results, with their machines.",
    },
    "dash.ref_title": {"bn": "reference/: অন্য মেশিনে মাপা (এখানে নয়)", "en": "reference/: measured on other machines (not here)"},
    "dash.ref_axis": {"bn": "মধ্যমা সময় (মিলিসেকেন্ড)", "en": "median time (ms)"},
    "dash.experiment": {"bn": "পরীক্ষা", "en": "experiment"},
    "dash.date": {"bn": "তারিখ", "en": "date"},
    "dash.broken": {
        "bn": "পাঠ {lesson}-এর প্যানেল তৈরি করা গেল না: {error}। নোটবুকটি খুলে প্রথম থেকে চালিয়ে দেখো কোথায় সমস্যা।",
        "en": "Lesson {lesson}'s panel could not be built: {error}. Open its notebook and run it from the top to see what is wrong.",
    },
}
