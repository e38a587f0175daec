"""Messages about NVIDIA Apex (fused.apex_status)."""

MESSAGES = {
    "apex.missing": {
        "bn": "NVIDIA Apex ইনস্টল করা নেই। দরকারও নেই: PyTorch-এর নিজের torch.optim.AdamW(fused=True), nn.LayerNorm ও torch.compile একই কাজ করে। চাইলে Apex পাবে সোর্স থেকে বিল্ড করে (APEX_CPP_EXT=1 APEX_CUDA_EXT=1 pip install -v --no-build-isolation .) বা conda-forge-এর nvidia-apex থেকে (শুধু linux-64 + CUDA)।",
        "en": "NVIDIA Apex is not installed. You do not need it: PyTorch's own torch.optim.AdamW(fused=True), nn.LayerNorm and torch.compile do the same job. To get Apex, build it from source (APEX_CPP_EXT=1 APEX_CUDA_EXT=1 pip install -v --no-build-isolation .) or use conda-forge's nvidia-apex (linux-64 + CUDA only).",
    },
    "apex.wrong_package": {
        "bn": "যে 'apex' ইনস্টল আছে সেটা NVIDIA Apex নয় — PyPI-র একই নামের একটি পুরোনো ওয়েব টুলকিট (Pyramid-এর জন্য)। এটা সরাও (pip uninstall apex), তারপর NVIDIA Apex সোর্স থেকে বিল্ড করো বা conda-forge-এর nvidia-apex নাও। ততক্ষণ PyTorch-এর fused অপটিমাইজার ব্যবহার হবে।",
        "en": "The installed 'apex' is not NVIDIA Apex — it is PyPI's unrelated old web toolkit (for Pyramid). Remove it (pip uninstall apex), then build NVIDIA Apex from source or use conda-forge's nvidia-apex. Until then PyTorch's fused optimizers are used.",
    },
    "apex.no_extensions": {
        "bn": "NVIDIA Apex আছে, কিন্তু এর CUDA এক্সটেনশন (amp_C, fused_layer_norm_cuda) বিল্ড হয়নি, তাই fused কার্নেল চলবে না। APEX_CPP_EXT=1 APEX_CUDA_EXT=1 দিয়ে আবার বিল্ড করো (CUDA টুলকিট লাগবে)। ততক্ষণ PyTorch-এর fused অপটিমাইজার ব্যবহার হবে।",
        "en": "NVIDIA Apex is present but its CUDA extensions (amp_C, fused_layer_norm_cuda) were not built, so its fused kernels cannot run. Rebuild with APEX_CPP_EXT=1 APEX_CUDA_EXT=1 (needs the CUDA toolkit). Until then PyTorch's fused optimizers are used.",
    },
    "apex.ok": {
        "bn": "NVIDIA Apex তার fused কার্নেলসহ কাজ করছে। মনে রেখো: FusedAdam-এর ডিফল্ট adam_w_mode=True, অর্থাৎ এটা আসলে AdamW।",
        "en": "NVIDIA Apex works, with its fused kernels. Remember: FusedAdam defaults to adam_w_mode=True, i.e. it is really AdamW.",
    },
}
