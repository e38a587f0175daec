"""Messages of notebook 00 (setup and first measurement)."""

MESSAGES = {
    "lesson00.panel_title": {"bn": "ম্যাট্রিক্স গুণের গতি: আকার ও ডেটা টাইপ বদলে দেখো", "en": "Matrix multiply speed: change the size and dtype"},
    "lesson00.max_size": {"bn": "সবচেয়ে বড় আকার", "en": "largest size"},
    "lesson00.matmul_title": {"bn": "ম্যাট্রিক্স গুণ ({dtype}): এই মেশিনে মাপা", "en": "matrix multiply ({dtype}): measured on this machine"},
    "lesson00.no_gpu_results": {
        "bn": "GPU নেই — সব পাঠ CPU-তে চলবে, শুধু সময় বেশি লাগবে। reference/ ফোল্ডারে এখনো কোনো GPU-তে মাপা ফল নেই; পাঠগুলো GPU-র জন্য শুধু ডেটাশিটের সংখ্যা (উৎসসহ) দেখায়।",
        "en": "No GPU — every lesson runs on the CPU, only slower. reference/ has no results measured on a GPU yet; for GPUs the lessons show datasheet figures (with sources) only.",
    },
    "lesson00.gpu_results": {
        "bn": "GPU নেই — সব পাঠ CPU-তে চলবে, শুধু সময় বেশি লাগবে। অন্য GPU-তে মাপা ফল reference/ থেকে, হার্ডওয়্যারের নামসহ দেখানো হয়: {gpus}।",
        "en": "No GPU — every lesson runs on the CPU, only slower. Results measured on other GPUs are shown from reference/, with the hardware named: {gpus}.",
    },
    # verdicts (verdicts.py)
    "lesson00.v_doubling": {"bn": "এখানে মাপা: {n}×{n} থেকে {n2}×{n2}-এ কাজ 8 গুণ, সময় বাড়ল {ratio:.1f} গুণ।",
                            "en": "Measured here: from {n}×{n} to {n2}×{n2} the work grows 8×, the time grew {ratio:.1f}×."},
    "lesson00.v_doubling_less": {"bn": "8 গুণের কম, কারণ ছোট ম্যাট্রিক্সে প্রতিটি কলের নির্দিষ্ট খরচ (Python, থ্রেড জাগানো) মোট সময়ের বড় অংশ, আর বড় ম্যাট্রিক্সে প্রসেসর বেশি দক্ষভাবে কাজ করে।",
                                 "en": "Less than 8×: for small matrices the fixed cost of each call (Python, waking threads) is a large part of the time, and bigger matrices use the processor more efficiently."},
    "lesson00.v_doubling_about": {"bn": "প্রায় 8 গুণ: এই আকারে সময় ঠিক করছে গণনার পরিমাণ নিজেই।",
                                  "en": "About 8×: at these sizes the amount of arithmetic itself sets the time."},
    "lesson00.v_doubling_more": {"bn": "8 গুণের বেশি: বড় ম্যাট্রিক্স প্রসেসরের ক্যাশে আর আঁটে না।",
                                 "en": "More than 8×: the bigger matrices no longer fit the processor's cache."},
    "lesson00.shaping_widths": {"bn": "matplotlib {version}: যুক্তাক্ষরের চওড়া {joined:.0f} px, আলাদা অক্ষরে {apart:.0f} px",
                                "en": "matplotlib {version}: the conjunct is {joined:.0f} px wide, the separate letters {apart:.0f} px"},
    "lesson00.v_shaping_ok": {"bn": "শেপিং ঠিক আছে ✓ — যুক্তাক্ষরটি আলাদা অক্ষরের চেয়ে সরু, তাই প্লটের বাংলা লেখা ঠিকমতো জোড়া লাগছে।",
                              "en": "Shaping works ✓ — the conjunct is narrower than the separate letters, so Bengali in plots is joined correctly."},
    "lesson00.v_shaping_broken": {"bn": "শেপিং কাজ করছে না ✗ — যুক্তাক্ষর আর আলাদা অক্ষর সমান চওড়া। matplotlib 3.11 বা নতুন ইনস্টল করো (প্রস্তুতি সেল Colab-এ নিজেই করে)।",
                                  "en": "Shaping does not work ✗ — the conjunct is as wide as the separate letters. Install matplotlib 3.11 or newer (the setup cell does this on Colab)."},
}
