"""Messages of `python -m fastrain_lib` (fastrain_lib.cli)."""

MESSAGES = {
    "cli.description": {
        "bn": "fastrain কোর্সের কমান্ড (make না থাকলেও চলে): lab কোর্স খোলে, test সব টেস্ট চালায়।",
        "en": "The fastrain course's commands (they work without make): lab opens the course, test runs every test.",
    },
    "cli.help_lab": {"bn": "কোর্সটি JupyterLab-এ খোলো (বাংলা ফন্টসহ, টোকেনসহ URL)", "en": "open the course in JupyterLab (with its Bengali font, a URL with a token)"},
    "cli.help_test": {"bn": "সব টেস্ট চালাও (CI যা চালায়)", "en": "run every test (what CI runs)"},
    "cli.help_demo": {"bn": "শিক্ষকের ড্যাশবোর্ড (Voilà)", "en": "the instructor dashboard (Voilà)"},
    "cli.help_bench": {"bn": "বেঞ্চমার্ক চালাও", "en": "run the benchmarks"},
    "cli.help_gpu_check": {"bn": "GPU মেশিনে কোর্সের GPU অংশ যাচাই (ইনস্টল ছাড়া)", "en": "check the GPU side of the course on a GPU machine (no install step)"},
    "cli.help_install": {"bn": "শুধু .venv তৈরি আর ইনস্টল", "en": "only create .venv and install"},
    "cli.help_colab_env": {"bn": "Colab-এর মতো পরিবেশ তৈরি (টেস্টের জন্য)", "en": "build the Colab-like environment (for the tests)"},
    "cli.help_sync": {"bn": "সংরক্ষিত সেল মেলাও (লেখকদের জন্য)", "en": "sync the saved cells (for authors)"},
    "cli.help_print_only": {"bn": "যা চালানো হতো তা শুধু দেখাও, কিছু চালিও না", "en": "only print what would run, run nothing"},
    "cli.help_no_install": {"bn": "ইনস্টল ধাপ বাদ (make নিজেই করে নিয়েছে)", "en": "skip the install step (make has done it)"},
    "cli.help_no_venv": {
        "bn": "কোনো .venv নয়: যে Python এটা চালাচ্ছে তাতেই (conda-র পরিবেশ, যেখানে কোর্স আগেই ইনস্টল করা)",
        "en": "no .venv: use the Python running this (a conda environment where the course is already installed)",
    },
    "cli.creating_venv": {"bn": "→ {venv} তৈরি হচ্ছে…", "en": "→ creating {venv}…"},
    "cli.installing": {
        "bn": "→ প্যাকেজ ইনস্টল হচ্ছে (প্রথমবার কয়েক মিনিট লাগে)…",
        "en": "→ installing packages (a few minutes the first time)…",
    },
    "cli.ready": {"bn": "✓ প্রস্তুত", "en": "✓ ready"},
    "cli.venv_failed": {
        "bn": "✗ {venv} তৈরি করা যায়নি। Python 3.10+ ও venv আছে কিনা দেখো (Debian/Ubuntu: sudo apt install python3-venv; Windows: python.org থেকে Python)।",
        "en": "✗ Could not create {venv}. Check Python 3.10+ with venv (Debian/Ubuntu: sudo apt install python3-venv; Windows: Python from python.org).",
    },
    "cli.install_failed": {
        "bn": "✗ ইনস্টল ব্যর্থ: pip install -e .[{extras}]। ইন্টারনেট ও ডিস্কের জায়গা দেখো, তারপর আবার চালাও। পুরো লগ: {log}",
        "en": "✗ Install failed: pip install -e .[{extras}]. Check the internet connection and disk space, then run it again. Full log: {log}",
    },
    "cli.font_failed": {
        "bn": "✗ বাংলা ফন্ট matplotlib-এ নিবন্ধন করা যায়নি",
        "en": "✗ the Bengali font could not be registered with matplotlib",
    },
    "cli.starting_lab": {
        "bn": "→ JupyterLab চালু হচ্ছে: নিচের টোকেনসহ URL ব্রাউজারে খোলো",
        "en": "→ starting JupyterLab: open the URL with its token below",
    },
    "cli.not_a_checkout": {
        "bn": "✗ '{command}' কোর্সের পুরো ফোল্ডার থেকে চালাতে হয় ({missing} পাওয়া গেল না)। কোর্সের ফোল্ডারে গিয়ে চালাও: cd <fastrain> && python -m fastrain_lib {command}",
        "en": "✗ '{command}' must run from the course's full folder ({missing} was not found). Go to the course folder and run: cd <fastrain> && python -m fastrain_lib {command}",
    },
    "cli.old_python": {
        "bn": "✗ এই কোর্সের জন্য Python 3.10 বা নতুন লাগবে; এটি {version}। নতুন Python দিয়ে চালাও (Windows: python.org, অথবা conda)।",
        "en": "✗ The course needs Python 3.10 or newer; this is {version}. Run it with a newer Python (Windows: python.org, or conda).",
    },
}
