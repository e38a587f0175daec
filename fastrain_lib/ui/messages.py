"""Messages of class_results: pooling the whole class's saved results."""

MESSAGES = {
    "class_results.loaded": {
        "bn": "{files}টি ফাইল থেকে {records}টি রেকর্ড পড়া হলো ({machines}টি আলাদা মেশিন); হুবহু একই রেকর্ড দুবার আসায় বাদ: {duplicates}টি।",
        "en": "Read {records} records from {files} files ({machines} different machines); exact duplicates dropped: {duplicates}.",
    },
    "class_results.skipped": {
        "bn": "⚠️ বাদ দেওয়া হলো: {name} — {reason}",
        "en": "⚠️ skipped: {name} — {reason}",
    },
    "class_results.bad_json": {
        "bn": "JSON হিসেবে পড়া যায়নি ({error}); ফাইলটি হয়তো অর্ধেক কপি হয়েছে বা হাতে বদলানো — আবার সংরক্ষণ করে পাঠাও",
        "en": "could not be read as JSON ({error}); the file may be half-copied or edited by hand — save it again and resend",
    },
    "class_results.bad_schema": {
        "bn": "এটা fastrain-এর ফলের ফাইল নয়: এতে \"records\" তালিকা নেই (প্যানেলের \"ফল সংরক্ষণ\" বোতাম দিয়ে তৈরি ফাইল দাও)",
        "en": "not a fastrain results file: it has no \"records\" list (use a file made by the panel's \"Save results\" button)",
    },
    "class_results.board_empty": {"bn": "বোর্ডে তুলনা করার মতো কোনো মেশিন নেই।", "en": "The board has no machine to compare."},
    "class_results.empty": {"bn": "ফাইলে কোনো রেকর্ড নেই", "en": "the file holds no records"},
    "class_results.bad_record": {"bn": "{index} নম্বর রেকর্ডে সমস্যা: {problem}", "en": "record {index} is broken: {problem}"},
    "class_results.not_object": {"bn": "রেকর্ডটি একটি JSON অবজেক্ট নয়", "en": "the record is not a JSON object"},
    "class_results.missing": {"bn": "দরকারি ঘর নেই: {fields}", "en": "required fields missing: {fields}"},
    "class_results.bad_value": {
        "bn": "নাম লেখা নয়, বা সময় (median_s) ধনাত্মক সংখ্যা নয়",
        "en": "the name is not text, or the time (median_s) is not a positive number",
    },
    "class_results.kind.precision": {"bn": "প্রিসিশন (AMP/bf16)", "en": "precision (AMP/bf16)"},
    "class_results.kind.fused": {"bn": "ফিউজড অপটিমাইজার", "en": "fused optimizer"},
    "class_results.speedup_axis": {"bn": "গতিবৃদ্ধি (speed-up) ×, 1-এর ডানে মানে দ্রুত", "en": "speed-up ×, right of 1 means faster"},
    "class_results.speedup_title": {"bn": "প্রতিটি মেশিনে গতিবৃদ্ধি (পুরো ক্লাসের মাপ)", "en": "Speed-up per machine (the whole class's measurements)"},
    "class_results.no_pairs": {
        "bn": "তুলনা করার মতো জোড়া নেই: একই পরীক্ষা দুই সেটিংয়ে (যেমন fp32 ও bf16) চালিয়ে দুটোই সংরক্ষণ করো",
        "en": "No pairs to compare: run the same experiment in two settings (e.g. fp32 and bf16) and save both",
    },
    "class_results.no_records": {"bn": "কোনো রেকর্ড পাওয়া যায়নি", "en": "no records found"},
    "class_results.leaderboard_title": {"bn": "লিডারবোর্ড: {name}", "en": "Leaderboard: {name}"},
    "class_results.machine": {"bn": "মেশিন", "en": "machine"},
    "class_results.comparison": {"bn": "তুলনা", "en": "comparison"},
    "class_results.variant": {"bn": "সেটিং / ভিত্তি", "en": "setting / baseline"},
    "class_results.matches": {"bn": "জোড়া", "en": "pairs"},
    "class_results.student": {"bn": "শিক্ষার্থী", "en": "student"},
    "class_results.vs_slowest": {"bn": "সবচেয়ে ধীরের তুলনায়", "en": "vs the slowest"},
    "class_results.runs": {"bn": "রান", "en": "runs"},
    "class_results.spread": {"bn": "রানগুলোর ওঠানামা", "en": "spread of the runs"},
    "class_results.tie_col": {"bn": "ক্রম", "en": "order"},
    "class_results.tie": {"bn": "ওঠানামার মধ্যে: ওপরের সারির সমান", "en": "within the noise: tied with the row above"},
    "class_results.board_grouped": {
        "bn": "{machine}: {runs}টি রান ({students}) একই মেশিন আর একই সেটিংয়ের — তাই একটি সারি, তাদের মধ্যমা; রানগুলোর "
              "ফারাক ({spread:.0%}) মাপের ওঠানামা, ক্রম নয়।",
        "en": "{machine}: {runs} runs ({students}) of the same machine and settings — so one row, their median; the "
              "difference between the runs ({spread:.0%}) is measurement noise, not a ranking.",
    },
    "class_results.board_tie": {
        "bn": "{b} আর {a}-এর ফারাক ({ratio:.2f} গুণ) তাদের রানগুলোর ওঠানামার মধ্যে: সমান, একটি অন্যটির চেয়ে দ্রুত বলা যায় না।",
        "en": "{b} and {a} differ by {ratio:.2f}x, within their runs' noise: a tie, neither is faster.",
    },
    "class_results.board_one": {
        "bn": "এই পরীক্ষায় শুধু একটি মেশিন ({machine}): তুলনা করার মতো অন্য মেশিন নেই, তাই কোনো ক্রম নেই।",
        "en": "Only one machine ran this experiment ({machine}): there is no other machine to rank it against.",
    },
}


# Messages of the instructor dashboard (make demo).
MESSAGES.update({
})

# Said by this package's code (moved from fastrain_lib/core/messages.py).
MESSAGES.update({
    "plots.old_matplotlib": {
        "bn": "তোমার matplotlib {version} বাংলা যুক্তাক্ষর ঠিকমতো আঁকতে পারে না (3.11 বা নতুন লাগবে)। তাই প্লটের লেখা ইংরেজিতে দেখানো হবে। ঠিক করতে: pip install -U 'matplotlib>=3.11', তারপর কার্নেল রিস্টার্ট করো।",
        "en": "Your matplotlib {version} cannot shape Bengali conjuncts (3.11 or newer is needed), so plot text is drawn in English. To fix: pip install -U 'matplotlib>=3.11', then restart the kernel.",
    },
    "widgets.run": {"bn": "চালাও", "en": "Run"},
    "widgets.running": {"bn": "চলছে… মাপা হচ্ছে", "en": "running… measuring"},
    "widgets.done": {"bn": "শেষ ({seconds:.1f} সেকেন্ড)", "en": "done ({seconds:.1f} s)"},
    "widgets.cached": {"bn": "আগের ফল (এই সেটিং আগেই মাপা হয়েছে)", "en": "earlier result (this setting was measured before)"},
    "widgets.failed": {"bn": "পরীক্ষাটি ব্যর্থ হয়েছে — নিচে কারণ দেখো", "en": "the experiment failed — see why below"},
    "widgets.details": {"bn": "বিস্তারিত (traceback)", "en": "details (traceback)"},
    "widgets.error": {
        "bn": "পরীক্ষা চালাতে গিয়ে সমস্যা: {kind}: {message}। সেটিং বদলে (যেমন ছোট আকার) আবার চালাও।",
        "en": "The experiment hit a problem: {kind}: {message}. Change a setting (e.g. a smaller size) and run again.",
    },
    "widgets.save": {"bn": "ফল সংরক্ষণ", "en": "Save results"},
    "widgets.save_name": {"bn": "তোমার নাম/মেশিন", "en": "your name/machine"},
    "widgets.saved": {"bn": "সংরক্ষিত: {path}", "en": "saved: {path}"},
    "widgets.nothing_to_save": {"bn": "আগে একবার চালাও, তারপর সংরক্ষণ করো।", "en": "Run it once first, then save."},
    "widgets.no_results_yet": {
        "bn": "এখনো কোনো ফল নেই: আগে ওপরের প্যানেলে «চালাও» বোতাম চাপো, মাপা শেষ হলে এই সেলটি আবার চালাও।",
        "en": "No results yet: press the panel's Run button above, and when it has finished, run this cell again.",
    },
    "widgets.results_failed": {
        "bn": "শেষ রানটি ব্যর্থ হয়েছে, তাই দেখানোর মতো ফল নেই। কারণ: {reason}",
        "en": "The last run failed, so there are no results to show. Why: {reason}",
    },
    "widgets.results_title": {"bn": "{title} — শেষ রানের ফল ({settings})", "en": "{title} — results of the last run ({settings})"},
    "widgets.figure": {"bn": "প্যানেলের প্লট", "en": "the panel's plot"},
    "progress.working": {"bn": "কাজ চলছে", "en": "working"},
})
