"""Messages of class_results: pooling the whole class's saved results."""

MESSAGES = {
    "class.loaded": {
        "bn": "{files}টি ফাইল থেকে {records}টি রেকর্ড পড়া হলো ({machines}টি আলাদা মেশিন); হুবহু একই রেকর্ড দুবার আসায় বাদ: {duplicates}টি।",
        "en": "Read {records} records from {files} files ({machines} different machines); exact duplicates dropped: {duplicates}.",
    },
    "class.skipped": {
        "bn": "⚠️ বাদ দেওয়া হলো: {name} — {reason}",
        "en": "⚠️ skipped: {name} — {reason}",
    },
    "class.bad_json": {
        "bn": "JSON হিসেবে পড়া যায়নি ({error}); ফাইলটি হয়তো অর্ধেক কপি হয়েছে বা হাতে বদলানো — আবার সংরক্ষণ করে পাঠাও",
        "en": "could not be read as JSON ({error}); the file may be half-copied or edited by hand — save it again and resend",
    },
    "class.bad_schema": {
        "bn": "এটা fastrain-এর ফলের ফাইল নয়: এতে \"records\" তালিকা নেই (প্যানেলের \"ফল সংরক্ষণ\" বোতাম দিয়ে তৈরি ফাইল দাও)",
        "en": "not a fastrain results file: it has no \"records\" list (use a file made by the panel's \"Save results\" button)",
    },
    "class.empty": {"bn": "ফাইলে কোনো রেকর্ড নেই", "en": "the file holds no records"},
    "class.bad_record": {"bn": "{index} নম্বর রেকর্ডে সমস্যা: {problem}", "en": "record {index} is broken: {problem}"},
    "class.not_object": {"bn": "রেকর্ডটি একটি JSON অবজেক্ট নয়", "en": "the record is not a JSON object"},
    "class.missing": {"bn": "দরকারি ঘর নেই: {fields}", "en": "required fields missing: {fields}"},
    "class.bad_value": {
        "bn": "নাম লেখা নয়, বা সময় (median_s) ধনাত্মক সংখ্যা নয়",
        "en": "the name is not text, or the time (median_s) is not a positive number",
    },
    "class.kind.precision": {"bn": "প্রিসিশন (AMP/bf16)", "en": "precision (AMP/bf16)"},
    "class.kind.fused": {"bn": "ফিউজড অপটিমাইজার", "en": "fused optimizer"},
    "class.kind.ddp": {"bn": "DDP প্রসেস", "en": "DDP processes"},
    "class.speedup_axis": {"bn": "গতিবৃদ্ধি (speed-up) ×, 1-এর ডানে মানে দ্রুত", "en": "speed-up ×, right of 1 means faster"},
    "class.speedup_title": {"bn": "প্রতিটি মেশিনে গতিবৃদ্ধি (পুরো ক্লাসের মাপ)", "en": "Speed-up per machine (the whole class's measurements)"},
    "class.no_pairs": {
        "bn": "তুলনা করার মতো জোড়া নেই: একই পরীক্ষা দুই সেটিংয়ে (যেমন fp32 ও bf16) চালিয়ে দুটোই সংরক্ষণ করো",
        "en": "No pairs to compare: run the same experiment in two settings (e.g. fp32 and bf16) and save both",
    },
    "class.no_records": {"bn": "কোনো রেকর্ড পাওয়া যায়নি", "en": "no records found"},
    "class.leaderboard_title": {"bn": "লিডারবোর্ড: {name}", "en": "Leaderboard: {name}"},
    "class.median_ms": {"bn": "মধ্যমা সময় (মিলিসেকেন্ড)", "en": "median time (ms)"},
    "class.machine": {"bn": "মেশিন", "en": "machine"},
    "class.comparison": {"bn": "তুলনা", "en": "comparison"},
    "class.variant": {"bn": "সেটিং / ভিত্তি", "en": "setting / baseline"},
    "class.speedup": {"bn": "গতিবৃদ্ধি", "en": "speed-up"},
    "class.matches": {"bn": "জোড়া", "en": "pairs"},
    "class.student": {"bn": "শিক্ষার্থী", "en": "student"},
    "class.vs_slowest": {"bn": "সবচেয়ে ধীরের তুলনায়", "en": "vs the slowest"},
}


# Messages of the instructor dashboard (make demo).
MESSAGES.update({
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
})
