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


# Messages of fastrain_lib.fused (optimizer/LayerNorm variants, kernel counting, the ablation) and gpt.
MESSAGES.update({
    "fused.bad_impl": {
        "bn": "অপটিমাইজারের ধরন '{impl}' চেনা নয়। এগুলোর একটি দাও: {allowed}।",
        "en": "Unknown optimizer implementation '{impl}'. Use one of: {allowed}.",
    },
    "fused.bad_norm": {
        "bn": "LayerNorm-এর ধরন '{impl}' চেনা নয়। এগুলোর একটি দাও: {allowed}।",
        "en": "Unknown LayerNorm implementation '{impl}'. Use one of: {allowed}.",
    },
    "fused.bad_stage": {
        "bn": "অ্যাবলেশনের ধাপ '{stage}' চেনা নয়। এগুলো থেকে বেছে নাও: {allowed}।",
        "en": "Unknown ablation stage '{stage}'. Choose from: {allowed}.",
    },
    "fused.apex_adam_fallback": {
        "bn": "Apex FusedAdam এখানে চালানো যাচ্ছে না (Apex-এর CUDA এক্সটেনশন আর GPU-তে রাখা প্যারামিটার — দুটোই লাগে)। তার বদলে PyTorch-এর torch.optim.AdamW(fused=True) ব্যবহার হচ্ছে, যা একই কাজ একটি fused কার্নেলে করে। Apex-এর অবস্থা: {status}",
        "en": "Apex FusedAdam cannot run here (it needs Apex's CUDA extension and parameters on a GPU). Using PyTorch's torch.optim.AdamW(fused=True) instead, which does the same in one fused kernel. Apex status: {status}",
    },
    "fused.apex_ln_fallback": {
        "bn": "Apex FusedLayerNorm এখানে চালানো যাচ্ছে না (fused_layer_norm_cuda এক্সটেনশন বিল্ড হয়নি)। তার বদলে nn.LayerNorm ব্যবহার হচ্ছে — CUDA-তে এটাও একটি fused কার্নেল, যা Apex থেকেই PyTorch-এ আনা হয়েছিল। Apex-এর অবস্থা: {status}",
        "en": "Apex FusedLayerNorm cannot run here (the fused_layer_norm_cuda extension is not built). Using nn.LayerNorm instead — on CUDA it is also one fused kernel, ported into PyTorch from Apex. Apex status: {status}",
    },
    "fused.no_tf32": {
        "bn": "TF32 ধাপ বাদ: {gpu} (compute capability {cc})-এ TF32 টেনসর কোর নেই — সেগুলো Ampere (8.0) থেকে শুরু। এখানে TF32 চালু করলে কিছুই বদলায় না, তাই সেই সারি শুধু FP32-কেই আবার মাপত।",
        "en": "The TF32 stage is left out: {gpu} (compute capability {cc}) has no TF32 tensor cores — they start with Ampere (8.0). Switching TF32 on changes nothing here, so that row would only measure FP32 again.",
    },
    "fused.no_tf32_forced": {
        "bn": "TF32 ধাপ বাদ: {env}=1 এই GPU-কে T4-এর মতো চালাচ্ছে, আর T4-এ TF32 নেই (TF32 টেনসর কোর Ampere, 8.0 থেকে)।",
        "en": "The TF32 stage is left out: {env}=1 runs this GPU like a T4, and a T4 has no TF32 (TF32 tensor cores start with Ampere, 8.0).",
    },
    "fused.stage.fp32": {"bn": "FP32 (TF32 বন্ধ)", "en": "FP32 (TF32 off)"},
    "fused.stage.tf32": {"bn": "+ TF32", "en": "+ TF32"},
    "fused.stage.amp": {"bn": "+ AMP ({precision})", "en": "+ AMP ({precision})"},
    "fused.stage.fused_adamw": {"bn": "+ fused AdamW", "en": "+ fused AdamW"},
    "fused.stage.apex_layernorm": {"bn": "+ Apex LayerNorm", "en": "+ Apex LayerNorm"},
    "fused.stage.compile": {"bn": "+ torch.compile", "en": "+ torch.compile"},
    "fused.stage.total": {"bn": "মোট", "en": "total"},
    "fused.progress_ablation": {"bn": "অ্যাবলেশন: ধাপগুলো মাপা চলছে", "en": "ablation: measuring the stages"},
})
