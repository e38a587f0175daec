"""Messages of fastrain_lib.regimes (the three regimes of a step), used by lesson 01 and later lessons."""

MESSAGES = {
    "regimes.overhead": {"bn": "ওভারহেড-সীমিত (overhead-bound)", "en": "overhead-bound"},
    "regimes.memory": {"bn": "মেমরি-সীমিত (memory-bound)", "en": "memory-bound"},
    "regimes.compute": {"bn": "গণনা-সীমিত (compute-bound)", "en": "compute-bound"},
    "regimes.overhead_short": {"bn": "ওভারহেড", "en": "overhead"},
    "regimes.memory_short": {"bn": "মেমরি", "en": "memory"},
    "regimes.compute_short": {"bn": "গণনা", "en": "compute"},
    "regimes.model_line": {
        "bn": "মডেল: ওভারহেড + বাইট ÷ ব্যান্ডউইথ",
        "en": "model: overhead + bytes ÷ bandwidth",
    },
    "regimes.numel_axis": {"bn": "টেনসরের উপাদান সংখ্যা", "en": "tensor elements"},
    "regimes.us_axis": {"bn": "প্রতি কলে সময় (মাইক্রোসেকেন্ড)", "en": "time per call (µs)"},
    "regimes.sweep_title": {
        "bn": "একটি এলিমেন্টওয়াইজ অপারেশন, আকার বাড়িয়ে\n({device}, এই মেশিনে মাপা)",
        "en": "one elementwise op of growing size\n({device}, measured on this machine)",
    },
    "regimes.share_axis": {"bn": "মডেলের হিসাবে সময়ের ভাগ", "en": "share of the time (model)"},
    "regimes.shares_title": {
        "bn": "তিনটি উদাহরণ: সময় কোথায় যায় (মডেল)\nওপরে: মেপে পাওয়া দশা, কাজ দ্বিগুণে সময় কত গুণ",
        "en": "three examples: where the time goes (model)\nabove: observed regime, time ratio for twice the work",
    },
    "regimes.table_example": {"bn": "উদাহরণ", "en": "example"},
    "regimes.table_us": {"bn": "প্রতি কলে µs", "en": "µs per call"},
    "regimes.table_growth": {"bn": "কাজ ×2 → সময় ×", "en": "work ×2 → time ×"},
    "regimes.table_bw_share": {"bn": "ব্যান্ডউইথের ভাগ", "en": "share of bandwidth"},
    "regimes.table_peak_share": {"bn": "peak-এর ভাগ", "en": "share of peak"},
    "regimes.table_predicted": {"bn": "মডেলের অনুমান", "en": "model predicts"},
    "regimes.table_observed": {"bn": "মেপে পাওয়া", "en": "observed"},
    "regimes.verdict_machine": {
        "bn": "এই মেশিনে ({device}) তিনটি সীমা মাপা হলো: প্রতিটি ছোট অপারেশনের নির্দিষ্ট খরচ {overhead_us:.1f} µs, "
              "মেমরি ব্যান্ডউইথ {gbs:.1f} GB/s, সর্বোচ্চ গণনা {gflops:.1f} GFLOP/s। অর্থাৎ একটি float32 এলিমেন্টওয়াইজ "
              "অপারেশনকে ওভারহেড ছাড়িয়ে মেমরি-সীমিত হতে প্রায় {border:,.0f}টি উপাদান লাগে।",
        "en": "Three limits measured on this machine ({device}): a fixed cost of {overhead_us:.1f} µs per small op, "
              "memory bandwidth {gbs:.1f} GB/s, peak compute {gflops:.1f} GFLOP/s. So a float32 elementwise op needs "
              "about {border:,.0f} elements before it leaves the overhead regime and becomes memory-bound.",
    },
    "regimes.verdict_example": {
        "bn": "{name}: প্রতি কলে {us:.1f} µs; কাজ দ্বিগুণ করলে সময় {growth:.2f} গুণ; ব্যান্ডউইথের {bw:.0%} আর "
              "peak-এর {peak:.0%} পেয়েছে। মেপে পাওয়া দশা: {observed}; মডেলের অনুমান: {predicted}।",
        "en": "{name}: {us:.1f} µs per call; twice the work took {growth:.2f}× the time; it reached {bw:.0%} of the "
              "bandwidth and {peak:.0%} of the peak. Observed regime: {observed}; the model predicts: {predicted}.",
    },
    "regimes.above_roof": {
        "bn": "এটি মাপা ব্যান্ডউইথের চেয়েও বেশি GB/s পেয়েছে ({gbs:.1f} বনাম {roof:.1f} GB/s)। সীমা ছাড়িয়ে যাওয়া যায় না, "
              "তাই দুটি মাপের একটি ঠিক নয়: হয় এর ডেটার একটা অংশ এক অপারেশন থেকে পরেরটা পর্যন্ত ক্যাশে (cache) থেকে গেছে, "
              "নয়তো দুই মাপের মাঝে মেমরির গতি বদলেছে (ভাগাভাগির মেশিনে বদলায়)। মাপা সীমাও একটা মাপ, নিখুঁত দেয়াল নয়।",
        "en": "It moved more GB/s than the measured bandwidth ({gbs:.1f} vs {roof:.1f} GB/s). A limit cannot be beaten, "
              "so one of the two measurements is off: part of its data stayed in the cache from one op to the next, or "
              "the memory's speed changed between the two measurements (on a shared machine it does). A measured limit "
              "is a measurement too, not an exact wall.",
    },
    "regimes.as_intended": {
        "bn": "এটি ঠিক সেই দশা দেখাচ্ছে, যার উদাহরণ হিসেবে একে বাছা হয়েছিল ({intended})।",
        "en": "It shows exactly the regime it was chosen to show ({intended}).",
    },
    "regimes.not_as_intended": {
        "bn": "এই মেশিনে এটি {intended} উদাহরণ হয়নি, হয়েছে {observed}: সীমাগুলো মেশিন অনুযায়ী বদলায় "
              "(আকার বাড়ালে বা কমালে দশা বদলায়), আর মেশিন ব্যস্ত থাকলে মাপও নড়ে।",
        "en": "On this machine it is not {intended} but {observed}: the borders depend on the machine "
              "(a bigger or smaller size moves it), and a busy machine moves the timings too.",
    },
    "regimes.noisy_note": {
        "bn": "⚠ এই মাপের সময় মেশিন ব্যস্ত ছিল (গোলমেলে); সংখ্যাগুলো সাবধানে পড়ো, শান্ত মেশিনে আবার চালাও।",
        "en": "⚠ The machine was busy during this measurement (noisy); read the numbers with care and rerun on a quiet machine.",
    },
}
