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
}
