"""Messages of notebook 00 (setup and first measurement)."""

MESSAGES = {
    "lesson00.panel_title": {"bn": "ম্যাট্রিক্স গুণের গতি: আকার ও ডেটা টাইপ বদলে দেখো", "en": "Matrix multiply speed: change the size and dtype"},
    "lesson00.max_size": {"bn": "সবচেয়ে বড় আকার", "en": "largest size"},
    "lesson00.matrix_size": {"bn": "ম্যাট্রিক্সের আকার n (n × n)", "en": "matrix size n (n × n)"},
    "lesson00.matmul_title": {"bn": "ম্যাট্রিক্স গুণ ({dtype}): এই মেশিনে মাপা", "en": "matrix multiply ({dtype}): measured on this machine"},
    "lesson00.font_title": {"bn": "বাংলা লেখা ঠিকমতো আঁকা হচ্ছে কি?", "en": "Is Bengali text drawn correctly?"},
}
