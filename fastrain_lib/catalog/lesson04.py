"""Messages of lesson 04 (fused kernels): panels/lesson04 and checks/lesson04."""

MESSAGES = {
    "lesson04.panel_title": {
        "bn": "ফিউজড কার্নেল পরীক্ষা: ছোট GPT-র একটি প্রশিক্ষণ ধাপ",
        "en": "Fused kernels experiment: one training step of a tiny GPT",
    },
    "lesson04.optimizer": {"bn": "অপটিমাইজার", "en": "optimizer"},
    "lesson04.precision": {"bn": "নির্ভুলতা", "en": "precision"},
    "lesson04.compile": {"bn": "torch.compile (প্রথমবার ~10 সেকেন্ড লাগে)", "en": "torch.compile (~10 s the first time)"},
    "lesson04.model_size": {"bn": "মডেলের আকার", "en": "model size"},
    "lesson04.ms_per_step": {"bn": "প্রতি ধাপে সময় (ms)", "en": "time per step (ms)"},
    "lesson04.time_title": {"bn": "এ পর্যন্ত চালানো সেটিংগুলো ({device})", "en": "settings run so far ({device})"},
    "lesson04.run_number": {"bn": "চালানোর ক্রম (টেবিল দেখো)", "en": "run number (see the table)"},
    "lesson04.model_part": {"bn": "মডেল: ফরওয়ার্ড + ব্যাকওয়ার্ড", "en": "model: forward + backward"},
    "lesson04.optimizer_part": {"bn": "অপটিমাইজার ধাপ", "en": "optimizer step"},
    "lesson04.launches_cpu": {"bn": "অপারেটর কল প্রতি ধাপে", "en": "operator calls per step"},
    "lesson04.launches_gpu": {"bn": "CUDA কার্নেল প্রতি ধাপে", "en": "CUDA kernels per step"},
    "lesson04.launch_title": {"bn": "এই সেটিং: মোট {total}টি লঞ্চ", "en": "this setting: {total} launches in all"},
    "lesson04.setting": {"bn": "সেটিং (অপটিমাইজার/LayerNorm/নির্ভুলতা/আকার)", "en": "setting (optimizer/LayerNorm/precision/size)"},
    "lesson04.launches_now": {"bn": "এই সেটিংয়ে লঞ্চ: মডেল + অপটিমাইজার", "en": "launches now: model + optimizer"},
    "lesson04.compile_note": {
        "bn": "প্রথম ধাপে কম্পাইল হয়েছে: {seconds:.1f} সেকেন্ড। এই সময় উপরের ধাপ-প্রতি সময়ে ধরা হয়নি — কম্পাইল তখনই লাভজনক, যখন অনেক ধাপ চালাবে।",
        "en": "The first step compiled: {seconds:.1f} s. That time is not in the per-step time above — compiling pays only when you run many steps.",
    },
    "lesson04.n_tensors": {"bn": "প্যারামিটার টেনসরের সংখ্যা", "en": "number of parameter tensors"},
    "lesson04.count_title": {"bn": "একটি Adam ধাপে লঞ্চ (সব মেশিনে একই)", "en": "launches in one Adam step (same on every machine)"},
    "lesson04.time_adam_title": {"bn": "একটি Adam ধাপের সময় ({device})", "en": "time of one Adam step ({device})"},
    "lesson04.ln_title": {"bn": "LayerNorm: ফরওয়ার্ড + ব্যাকওয়ার্ড", "en": "LayerNorm: forward + backward"},
    "lesson04.apex_note": {
        "bn": "Apex এখানে নেই (বা GPU নেই), তাই 'apex' বেছে নিলে তার জায়গায় PyTorch-এর সমতুল্যটি চলেছে: AdamW(fused=True) আর nn.LayerNorm।",
        "en": "Apex is not available here (or there is no GPU), so 'apex' ran PyTorch's equivalent instead: AdamW(fused=True) and nn.LayerNorm.",
    },
    "lesson04.stage": {"bn": "ধাপ", "en": "stage"},
    "lesson04.tokens_per_s": {"bn": "টোকেন/সেকেন্ড", "en": "tokens/s"},
    "lesson04.speedup": {"bn": "গতিবৃদ্ধি (×)", "en": "speed-up (×)"},
    "lesson04.speedup_axis": {"bn": "গতিবৃদ্ধি, প্রথম ধাপের তুলনায় (×)", "en": "speed-up over the first stage (×)"},
    "lesson04.compile_s": {"bn": "কম্পাইল (সে.)", "en": "compile (s)"},
    "lesson04.claimed": {"bn": "দাবি: {claimed:g}×", "en": "claimed: {claimed:g}×"},
    "lesson04.ablation_here": {"bn": "এই মেশিনে মাপা: {hardware}", "en": "measured here: {hardware}"},
    "lesson04.ablation_reference": {"bn": "রেফারেন্স: {hardware}", "en": "reference: {hardware}"},
    "lesson04.no_reference": {
        "bn": "reference/ ফোল্ডারে এখনও কোনো GPU-র অ্যাবলেশন ফল নেই। GPU মেশিনে benchmarks/ স্ক্রিপ্ট চালালে ফল সেখানে জমা হবে, আর এই সেল হার্ডওয়্যারের নামসহ সেটা দেখাবে।",
        "en": "reference/ holds no GPU ablation results yet. Running the benchmarks/ script on a GPU machine stores them there, and this cell will show them labelled with their hardware.",
    },
    # --- checks
    "lesson04.adam_grads_changed": {
        "bn": "তোমার ফাংশন গ্রেডিয়েন্টগুলোই বদলে ফেলেছে (যেমন torch._foreach_mul_(grads, ...))। গ্রেডিয়েন্ট শুধু পড়ার জিনিস: ইন-প্লেস (_ দিয়ে শেষ) অপারেশন চালাও শুধু params, exp_avgs আর exp_avg_sqs-এ, বা আগে একটা কপি নাও (torch._foreach_mul(grads, ...))।",
        "en": "Your function changed the gradients themselves (e.g. torch._foreach_mul_(grads, ...)). Gradients are read-only here: use in-place (_) ops only on params, exp_avgs and exp_avg_sqs, or take a copy first (torch._foreach_mul(grads, ...)).",
    },
    "lesson04.adam_state_wrong": {
        "bn": "চলমান গড় (exp_avgs বা exp_avg_sqs) Adam-এর সাথে মিলছে না। প্রায়ই কারণ ইন-প্লেস অ্যালিয়াসিং: যেমন denom = exp_avg_sqs; torch._foreach_sqrt_(denom) — এতে v নিজেই বর্গমূল হয়ে যায়। হর (denominator) বানাও নতুন টেনসরে: torch._foreach_sqrt(exp_avg_sqs) (শেষে _ ছাড়া)।",
        "en": "The running averages (exp_avgs or exp_avg_sqs) do not match Adam's. Often an in-place aliasing bug: e.g. denom = exp_avg_sqs; torch._foreach_sqrt_(denom) turns v itself into its square root. Build the denominator in new tensors: torch._foreach_sqrt(exp_avg_sqs) (no trailing _).",
    },
    "lesson04.adam_no_bias_correction": {
        "bn": "বায়াস সংশোধন (bias correction) বাদ পড়েছে: m আর v শূন্য থেকে শুরু হয় বলে প্রথম দিকে খুব ছোট থাকে। m̂ = m / (1 − β1^step) আর v̂ = v / (1 − β2^step) দিয়ে ভাগ করো।",
        "en": "Bias correction is missing: m and v start at zero and are too small early on. Divide: m̂ = m / (1 − β1^step), v̂ = v / (1 − β2^step).",
    },
    "lesson04.adam_eps_inside": {
        "bn": "eps ভুল জায়গায়: Adam-এ eps বর্গমূলের বাইরে যোগ হয় — p -= lr · m̂ / (√v̂ + eps), √(v̂ + eps) নয়।",
        "en": "eps is in the wrong place: Adam adds eps outside the square root — p -= lr · m̂ / (√v̂ + eps), not √(v̂ + eps).",
    },
    "lesson04.adam_params_wrong": {
        "bn": "20 ধাপ পরে প্যারামিটার torch.optim.Adam-এর সাথে মেলেনি (সবচেয়ে বড় পার্থক্য {diff:.3g})। সূত্রটা ধাপে ধাপে মিলিয়ে দেখো: m, v, বায়াস সংশোধন, তারপর p -= lr · m̂ / (√v̂ + eps)।",
        "en": "After 20 steps the parameters do not match torch.optim.Adam (largest difference {diff:.3g}). Check the formula step by step: m, v, bias correction, then p -= lr · m̂ / (√v̂ + eps).",
    },
    "lesson04.adam_first_step": {
        "bn": "প্রথম ধাপেই ফল মেলেনি (সবচেয়ে বড় পার্থক্য {diff:.3g})। step 1 থেকে গোনা হয়: প্রথম কলে step=1।",
        "en": "Already the first step does not match (largest difference {diff:.3g}). step counts from 1: the first call gets step=1.",
    },
    "lesson04.launch_not_int": {
        "bn": "ফাংশনটি একটি পূর্ণসংখ্যা (int) ফেরত দেবে: লঞ্চের সংখ্যা, যেমন fused.count_launches(opt.step).launches। তুমি দিয়েছ: {got}",
        "en": "The function must return an int: the number of launches, e.g. fused.count_launches(opt.step).launches. You returned: {got}",
    },
    "lesson04.launch_no_warmup": {
        "bn": "সংখ্যাটা প্রথম ধাপের — যে ধাপে অপটিমাইজার তার অবস্থা (m, v) তৈরি করে, তাই বেশি অপারেশন হয়। মাপার আগে একবার opt.step() চালিয়ে নাও (ওয়ার্ম-আপ), বা count_launches-কে warmup=1 দাও।",
        "en": "That is the first step's count — the step where the optimizer creates its state (m, v), so it runs extra operations. Run opt.step() once before measuring (warm-up), or give count_launches warmup=1.",
    },
    "lesson04.launch_wrong": {
        "bn": "{impl} অপটিমাইজারে {n}টি প্যারামিটার টেনসরের জন্য মাপা সংখ্যা {expected}, তোমার ফাংশন দিয়েছে {got}। মনে রাখো: প্রতিটি টেনসরের গ্রেডিয়েন্ট থাকতে হবে, আর make_optimizer(params, impl) দিয়ে অপটিমাইজার বানাও।",
        "en": "For the {impl} optimizer with {n} parameter tensors the measured count is {expected}; your function returned {got}. Every tensor needs a gradient, and build the optimizer with make_optimizer(params, impl).",
    },
    "lesson04.launch_ok": {
        "bn": "ঠিক হয়েছে! 16টি টেনসরে for-loop: {forloop}টি কল, foreach: {foreach}টি। তোমার অনুমানের সাথে মিলিয়ে দেখো।",
        "en": "Correct! With 16 tensors, for-loop: {forloop} calls, foreach: {foreach}. Compare with your prediction.",
    },
    "lesson04.ln_shape": {
        "bn": "আউটপুটের আকার {got}, কিন্তু হওয়ার কথা ইনপুটের মতো {expected}। mean আর var নেওয়ার সময় keepdim=True দাও।",
        "en": "The output has shape {got} but should match the input, {expected}. Use keepdim=True when taking mean and var.",
    },
    "lesson04.ln_unbiased": {
        "bn": "ভ্যারিয়ান্স (variance) অপক্ষপাতী (unbiased, n−1 দিয়ে ভাগ) নেওয়া হয়েছে। LayerNorm n দিয়ে ভাগ করে: x.var(-1, unbiased=False, keepdim=True) বা ((x − mean)²).mean(-1, keepdim=True)।",
        "en": "The variance is unbiased (divides by n−1). LayerNorm divides by n: x.var(-1, unbiased=False, keepdim=True) or ((x − mean)²).mean(-1, keepdim=True).",
    },
    "lesson04.ln_eps_outside": {
        "bn": "eps ভুল জায়গায়: LayerNorm-এ eps বর্গমূলের ভেতরে — (x − mean) / √(var + eps)। (Adam-এ উল্টো: সেখানে বাইরে!)",
        "en": "eps is in the wrong place: LayerNorm puts it inside the square root — (x − mean) / √(var + eps). (Adam is the other way round!)",
    },
    "lesson04.ln_wrong_dim": {
        "bn": "গড় আর ভ্যারিয়ান্স ভুল মাত্রা (dimension) বরাবর নেওয়া হয়েছে। LayerNorm প্রতিটি টোকেনের বৈশিষ্ট্যগুলো (শেষ মাত্রা, dim=-1) বরাবর নরমালাইজ করে।",
        "en": "Mean and variance were taken along the wrong dimension. LayerNorm normalises over each token's features (the last dimension, dim=-1).",
    },
    "lesson04.ln_no_affine": {
        "bn": "নরমালাইজ ঠিক আছে, কিন্তু weight দিয়ে গুণ আর bias যোগ করা হয়নি: শেষে x̂ · weight + bias ফেরত দাও।",
        "en": "The normalisation is right but weight and bias are not applied: return x̂ · weight + bias.",
    },
    "lesson04.ln_wrong": {
        "bn": "ফল F.layer_norm-এর সাথে মেলেনি (সবচেয়ে বড় পার্থক্য {diff:.3g})। ধাপগুলো দেখো: mean, var (n দিয়ে ভাগ), (x − mean)/√(var + eps), তারপর · weight + bias।",
        "en": "The result does not match F.layer_norm (largest difference {diff:.3g}). Check the steps: mean, var (divide by n), (x − mean)/√(var + eps), then · weight + bias.",
    },
}
