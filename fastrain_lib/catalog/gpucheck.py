"""Messages of scripts/gpu_check.py (make gpu-check)."""

MESSAGES = {
    "gpucheck.title": {"bn": "make gpu-check — শুরু {started}, সময়সীমা {budget} সেকেন্ড",
                       "en": "make gpu-check — started {started}, time budget {budget} s"},
    "gpucheck.where": {"bn": "সারাংশ ও লগ: {path}", "en": "summary and logs: {path}"},
    "gpucheck.no_cuda": {
        "bn": "এই মেশিনে CUDA GPU পাওয়া যায়নি (torch.cuda.is_available() = False)। GPU-ওয়ালা মেশিনে চালাও; শুধু ধাপগুলো দেখতে: make gpu-check DRY_RUN=1",
        "en": "No CUDA GPU on this machine (torch.cuda.is_available() = False). Run it on a GPU machine; to only list the steps: make gpu-check DRY_RUN=1",
    },
    "gpucheck.missing": {
        "bn": "যা নেই: {names}। ইন্টারনেটওয়ালা একটি মেশিনে (একই Python সংস্করণ ও প্ল্যাটফর্ম) চালাও: pip download {dists} -d wheels/ — তারপর wheels/ ফোল্ডারটি এখানে এনে: make gpu-check WHEELS=wheels/",
        "en": "Missing: {names}. On a machine with network (same Python version and platform) run: pip download {dists} -d wheels/ — then bring the wheels/ folder here and run: make gpu-check WHEELS=wheels/",
    },
    "gpucheck.datasheet_row": {"bn": "ডেটাশিট সারি: {key}", "en": "datasheet row: {key}"},
    "gpucheck.no_datasheet_row": {
        "bn": "এই GPU ডেটাশিট তালিকায় নেই: MFU অজানা দেখাবে (fastrain_lib/datasheet.py-তে উৎসসহ একটি সারি যোগ করো)",
        "en": "this GPU is not in the datasheet table: MFU will show as unknown (add a row with its source to fastrain_lib/datasheet.py)",
    },
    "gpucheck.timeout": {"bn": "{seconds} সেকেন্ডের সময়সীমা পেরিয়ে গেছে, থামানো হলো", "en": "stopped after its {seconds} s budget"},
    "gpucheck.no_time": {"bn": "সময় বাকি {seconds} সেকেন্ড, এই ধাপের অন্তত {needs} লাগে: চালানো হয়নি",
                         "en": "{seconds} s left, this step needs at least {needs} s: not run"},
    "gpucheck.after_preflight": {"bn": "প্রস্তুতি-পরীক্ষা ব্যর্থ, তাই চালানো হয়নি", "en": "not run: the preflight failed"},
    "gpucheck.apex_not_asked": {
        "bn": "Apex-এর চেকআউট দেওয়া হয়নি (--apex PATH / APEX=PATH), তাই Apex-এর সারিগুলো মাপা হয়নি",
        "en": "no Apex checkout given (--apex PATH / APEX=PATH), so the Apex rows were not measured",
    },
    "gpucheck.apex_bad_path": {"bn": "{path}-এ NVIDIA Apex-এর setup.py নেই", "en": "{path} holds no NVIDIA Apex setup.py"},
    "gpucheck.apex_timeout": {
        "bn": "Apex বিল্ড {seconds} সেকেন্ডে শেষ হয়নি: Apex-এর সারিগুলো মাপা হয়নি (বেশি সময় দিয়ে আবার চালাও: --budget)",
        "en": "the Apex build did not finish within {seconds} s: the Apex rows were not measured (run again with a larger --budget)",
    },
    "gpucheck.bench_files": {"bn": "নতুন ফলের ফাইল (reference/, গোলমেলে রান হলে results/benchmarks/): {files}",
                             "en": "new results files (reference/, or results/benchmarks/ for a noisy run): {files}"},
    "gpucheck.notebooks_count": {"bn": "{total}টির মধ্যে {passed}টি নোটবুক ঠিকঠাক চলেছে",
                                 "en": "{passed} of {total} notebooks ran cleanly"},
    "gpucheck.notebooks_planned": {"bn": "{count}টি নোটবুক, একসাথে {jobs}টি করে, lab মোডে",
                                   "en": "{count} notebooks, {jobs} at a time, in lab mode"},
    "gpucheck.not_run_time": {"bn": "সময় ফুরিয়ে যাওয়ায় চালানো হয়নি: {names}", "en": "not run (time budget): {names}"},
}
