"""Messages of lesson 04 (fused kernels): its panel, verdicts, tables and checks, and the lines
solutions/04 still prints by key."""

MESSAGES = {
    "lesson04.panel_title": {
        "bn": "ফিউজড কার্নেল পরীক্ষা: ছোট GPT-র একটি প্রশিক্ষণ ধাপ",
        "en": "Fused kernels experiment: one training step of a tiny GPT",
    },
    "lesson04.name.forloop": {"bn": "লুপ", "en": "for-loop"},
    "lesson04.name.naive": {"bn": "হাতে-লেখা", "en": "naive"},
    "lesson04.name.naive_compiled": {"bn": "হাতে-লেখা + কম্পাইল", "en": "naive + compile"},
    "lesson04.name.efficient": {"bn": "মেমরি-সাশ্রয়ী", "en": "efficient"},
    "lesson04.name.unknown": {"bn": "অজানা", "en": "unknown"},
    "lesson04.name.tiny": {"bn": "খুব ছোট", "en": "tiny"},
    "lesson04.name.small": {"bn": "ছোট", "en": "small"},
    "lesson04.name.medium": {"bn": "মাঝারি", "en": "medium"},
    "lesson04.precision": {"bn": "প্রিসিশন", "en": "precision"},
    "lesson04.compile": {"bn": "torch.compile", "en": "torch.compile"},
    "lesson04.model_size": {"bn": "মডেলের আকার", "en": "model size"},
    "lesson04.time_title": {"bn": "এ পর্যন্ত চালানো সেটিংগুলো ({device})", "en": "settings run so far ({device})"},
    "lesson04.run_number": {"bn": "চালানোর ক্রম (টেবিল দেখো)", "en": "run number (see the table)"},
    "lesson04.model_part": {"bn": "মডেল: ফরওয়ার্ড + ব্যাকওয়ার্ড", "en": "model: forward + backward"},
    "lesson04.optimizer_part": {"bn": "অপটিমাইজার ধাপ", "en": "optimizer step"},
    "lesson04.launches_cpu": {"bn": "অপারেটর কল প্রতি ধাপে", "en": "operator calls per step"},
    "lesson04.launches_gpu": {"bn": "CUDA কার্নেল প্রতি ধাপে", "en": "CUDA kernels per step"},
    "lesson04.launch_title": {"bn": "এই সেটিং: মোট {total}টি লঞ্চ", "en": "this setting: {total} launches in all"},
    "lesson04.setting": {"bn": "সেটিং (অপটিমাইজার/LayerNorm/প্রিসিশন/আকার)", "en": "setting (optimizer/LayerNorm/precision/size)"},
    "lesson04.launches_now": {"bn": "এই সেটিংয়ে লঞ্চ: মডেল + অপটিমাইজার", "en": "launches now: model + optimizer"},
    "lesson04.compile_note": {
        "bn": "প্রথম ধাপে কম্পাইল হয়েছে: {seconds:.1f} সেকেন্ড। এই সময় উপরের ধাপ-প্রতি সময়ে ধরা হয়নি — কম্পাইল তখনই লাভজনক, যখন অনেক ধাপ চালাবে।",
        "en": "The first step compiled: {seconds:.1f} s. That time is not in the per-step time above — compiling pays only when you run many steps.",
    },
    "lesson04.apex_note": {
        "bn": "Apex এখানে নেই (বা GPU নেই), তাই 'apex' বেছে নিলে তার জায়গায় PyTorch-এর সমতুল্যটি চলেছে: AdamW(fused=True) আর nn.LayerNorm।",
        "en": "Apex is not available here (or there is no GPU), so 'apex' ran PyTorch's equivalent instead: AdamW(fused=True) and nn.LayerNorm.",
    },
    "lesson04.stage": {"bn": "ধাপ", "en": "stage"},
    "lesson04.speedup": {"bn": "গতিবৃদ্ধি (×)", "en": "speed-up (×)"},
    "lesson04.speedup_axis": {"bn": "গতিবৃদ্ধি, প্রথম ধাপের তুলনায় (×)", "en": "speed-up over the first stage (×)"},
    "lesson04.compile_s": {"bn": "কম্পাইল (সে.)", "en": "compile (s)"},
    "lesson04.claimed": {"bn": "দাবি: {claimed:g}×", "en": "claimed: {claimed:g}×"},
    "lesson04.ablation_here": {"bn": "এই মেশিনে মাপা: {hardware}", "en": "measured here: {hardware}"},
    "lesson04.ablation_reference": {"bn": "রেফারেন্স: {hardware}", "en": "reference: {hardware}"},
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
        "bn": "ঠিক হয়েছে! 16টি টেনসরে লুপ: {forloop}টি কল, foreach: {foreach}টি। তোমার অনুমানের সাথে মিলিয়ে দেখো।",
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
    # notebook: inline texts
    "lesson04.variant": {"bn": "রূপ", "en": "variant"},
    # verdicts (# VERDICT cells)
    "lesson04.v.adam_little": {"bn": "কেন: এখানে রূপগুলোর পার্থক্য সামান্য — প্রতিটি কলের খরচ মেমরির কাজের তুলনায় ছোট।", "en": "Why: the variants differ little here — each call's cost is small next to the memory work."},
    "lesson04.v.adam_passes": {
        "bn": "কেন: {n1}টি টেনসরেও (যেখানে কলের সংখ্যা প্রায় কোনো ব্যাপার নয়) fused {ratio1:.1f}× দ্রুত — তাই লাভের বড় অংশ লঞ্চ কমানো থেকে নয়, প্রতিটি সংখ্যা একবার পড়ে-লেখা থেকে (লুপ-রূপটি প্রতিটি অপারেশনে পুরো টেনসর আবার পড়ে আর লেখে)।",
        "en": "Why: even with {n1} tensor(s), where the number of calls hardly matters, fused is {ratio1:.1f}× as fast — so most of the gain is not fewer launches but reading and writing each number once (the for-loop re-reads and re-writes whole tensors in every operation).",
    },
    "lesson04.v.adam_calls": {
        "bn": "কেন: লাভ টেনসরের সংখ্যার সাথে বাড়ে ({ratio1:.1f}× থেকে {ratio:.1f}×) — প্রতিটি কলের খরচ (Python আর dispatch; GPU-তে লঞ্চ) এখানে প্রধান।",
        "en": "Why: the gain grows with the number of tensors ({ratio1:.1f}× to {ratio:.1f}×) — the cost per call (Python and dispatch; launches on a GPU) dominates here.",
    },
    "lesson04.v.compile_break_even": {
        "bn": "প্রতি কলে বাঁচে {saved:.3f} ms। ঠান্ডা ক্যাশে কম্পাইলের {cold:.1f} সেকেন্ড উঠে আসতে প্রায় {calls:,.0f} কল লাগবে; ভরা ক্যাশে ({warm:.3f} সেকেন্ড) প্রায় {warm_calls:,.0f} কল।",
        "en": "Each call saves {saved:.3f} ms. Paying back the cold compile's {cold:.1f} s takes about {calls:,.0f} calls; with a warm cache ({warm:.3f} s) about {warm_calls:,.0f} calls.",
    },
    "lesson04.v.baseline_same": {
        "bn": "বেসলাইনের অপটিমাইজার AdamW foreach। এই ডিভাইসে ({device}) PyTorch-এর ডিফল্ট {default} — অর্থাৎ বেসলাইন এখানে ডিফল্টই।",
        "en": "The baseline's optimizer is AdamW foreach. On this device ({device}) PyTorch's default is {default} — so here the baseline is the default.",
    },
    "lesson04.v.baseline_differs": {
        "bn": "বেসলাইনের অপটিমাইজার AdamW foreach। এই ডিভাইসে ({device}) PyTorch-এর ডিফল্ট {default} — অর্থাৎ এখানে বেসলাইন PyTorch-এর ডিফল্ট নয়: কিছু না বললে এখানে চলত {default}।",
        "en": "The baseline's optimizer is AdamW foreach. On this device ({device}) PyTorch's default is {default} — so here the baseline is not PyTorch's default: left alone, PyTorch would run {default} here.",
    },
    "lesson04.v.amp_native_fast": {"bn": "কেন: এই ডিভাইস {precision} হার্ডওয়্যারেই চালায় (টেনসর কোর বা AVX-512 BF16/AMX): গুণ দ্রুত, বাইট অর্ধেক।", "en": "Why: this device runs {precision} in hardware (tensor cores or AVX-512 BF16/AMX): faster multiplies, half the bytes."},
    "lesson04.v.amp_emulated_fast": {"bn": "কেন: এই {device}-তে {precision}-এর গাণিতিক একক নেই (হার্ডওয়্যার রিপোর্ট), তবু অর্ধেক বাইট সরাতে হয় — মেমরি-সীমিত অংশে তাতেই লাভ।", "en": "Why: this {device} has no {precision} arithmetic units (hardware report), yet half the bytes move — that helps the memory-bound parts."},
    "lesson04.v.amp_no_native": {"bn": "কেন: হার্ডওয়্যার রিপোর্ট অনুযায়ী এই {device}-তে {precision}-এর গাণিতিক একক নেই, তাই {precision} চলে সাধারণ পথে, রূপান্তরের খরচসহ — লাভ হয় না।", "en": "Why: by the hardware report this {device} has no {precision} arithmetic units, so {precision} runs on a generic path with conversion costs — no gain."},
    "lesson04.v.amp_overhead": {
        "bn": "কেন: এই ডিভাইস {precision} হার্ডওয়্যারেই চালায়, কিন্তু FP32 ধাপ সর্বোচ্চ গতির মাত্র {mfu:.0%} ব্যবহার করেছে — এত ছোট মডেলের সময় যায় গুণে নয়, Python আর অপারেটর ডাকায়; গুণ দ্রুত হলেও তাই মোট সময় বদলায় না।",
        "en": "Why: this device runs {precision} in hardware, but the FP32 stage used only {mfu:.0%} of the peak — a model this small spends its time not on multiplies but on Python and operator calls, so faster multiplies do not change the total.",
    },
    "lesson04.v.amp_overhead_slower": {
        "bn": "কেন: এই ডিভাইস {precision} হার্ডওয়্যারেই চালায়, আর FP32 ধাপ সর্বোচ্চ গতির মাত্র {mfu:.0%} ব্যবহার করেছে — তবু এখানে AMP ধাপ উল্টে ধীর হলো ({factor:.2f}×)। কোন অপারেটর সময় খেল, তা অনুমান নয়: পরের লাইনে torch.profiler-এর মাপ।",
        "en": "Why: this device runs {precision} in hardware, and the FP32 stage used only {mfu:.0%} of the peak — yet here the AMP stage got slower ({factor:.2f}×). Which operator took the time is not a guess: the next line is torch.profiler's measurement.",
    },
    "lesson04.v.amp_native_small": {"bn": "কেন: এই ডিভাইস {precision} হার্ডওয়্যারেই চালায়, কিন্তু এত ছোট মডেলে রূপান্তরের খরচ আর অন্য কাজ লাভটা খেয়ে ফেলে।", "en": "Why: this device runs {precision} in hardware, but in a model this small the casts and other work eat the gain."},
    # exercise 04, task 2: the prediction, checked against a count measured now
    "lesson04.prediction_missing": {
        "bn": "আগে অনুমান লেখো: prediction = {\"forloop\": …, \"foreach\": …} — দুটোই পূর্ণসংখ্যা, মাপার আগে।",
        "en": "Write your guess first: prediction = {\"forloop\": …, \"foreach\": …} — both whole numbers, before measuring.",
    },
    "lesson04.prediction_not_int": {"bn": "{impl}-এর অনুমান একটি পূর্ণসংখ্যা (int) হবে, যেমন 100। তুমি লিখেছ: {got}", "en": "The guess for {impl} must be a whole number (int), e.g. 100. You wrote: {got}"},
    "lesson04.prediction_ok": {"bn": "অনুমান মিলেছে! {n}টি টেনসরে লুপ: {forloop}টি কল, foreach: {foreach}টি — এখনই মাপা।", "en": "Your guess matches! With {n} tensors, for-loop: {forloop} calls, foreach: {foreach} — measured just now."},
    "lesson04.prediction_off": {
        "bn": "{impl}: তোমার অনুমান {guess}, মাপা {measured}। মাপা নিয়ম: 1টি টেনসরে {one}টি কল, প্রতি বাড়তি টেনসরে {per:g}টি করে।",
        "en": "{impl}: you guessed {guess}, measured {measured}. The measured rule: {one} calls with 1 tensor, {per:g} more per extra tensor.",
    },
    "lesson04.prediction_foreach_constant": {
        "bn": "foreach-কে পুরো স্থির ধরেছ। হিসাবের _foreach_* কলগুলো স্থির ঠিকই, কিন্তু এখানে প্রতিটি টেনসরের ধাপ-গণক (step) থেকে মান পড়তে aten::item-এর মতো কল টেনসরপ্রতি যোগ হয় — উপরের নামের তালিকায় দেখো।",
        "en": "You took foreach as fully constant. Its _foreach_* compute calls are constant, but here calls such as aten::item, reading each tensor's step counter, are added per tensor — see the list of names above.",
    },
    "lesson04.prediction_wrong": {"bn": "অনুমান মেলেনি। {details} এই নিয়মে আবার হিসাব করে দেখো — আর পরের বার আগে নিয়মটা খোঁজো, তারপর গুণ করো।", "en": "The guess does not match. {details} Work it out again with this rule — next time find the rule first, then multiply."},
    # exercise 04, task 3: a row-wise softmax in Triton
    "lesson04.tsm_no_triton": {
        "bn": "এই মেশিনে Triton নেই (Windows-এ PyPI-র torch-এর সঙ্গে আসে না), তাই এই কাজের kernel লেখা যায়, কিন্তু চালানো বা যাচাই করা যায় না। Linux-এ `pip install triton` (CUDA-সহ PyTorch-এর সাথে সাধারণত থাকে), অথবা কাজটি Google Colab-এ চালাও।",
        "en": "Triton is not installed here (PyPI's torch does not bring it on Windows), so this task's kernel can be written but not run or checked. On Linux, `pip install triton` (it usually comes with CUDA builds of PyTorch), or run the task on Google Colab.",
    },
    "lesson04.tsm_mutated": {
        "bn": "তোমার softmax ইনপুট x-কেই বদলে ফেলেছে। ফল লেখো নতুন একটি টেনসরে (y = torch.empty_like(x)), আর kernel-এ store করো y_ptr-এ, x_ptr-এ নয়।",
        "en": "Your softmax changed its input x. Write the result into a new tensor (y = torch.empty_like(x)) and store to y_ptr in the kernel, not x_ptr.",
    },
    "lesson04.tsm_not_tensor": {
        "bn": "softmax(x) একটি float টেনসর ফেরত দেবে (kernel যেটায় লিখেছে সেই y)। তুমি ফেরত দিয়েছ: {got}",
        "en": "softmax(x) must return a float tensor (the y your kernel wrote). You returned: {got}",
    },
    "lesson04.tsm_shape": {
        "bn": "ফলের আকার {got}, কিন্তু হওয়ার কথা x-এর আকার {expected}: প্রতিটি সারির softmax, সারির মতোই লম্বা।",
        "en": "The result has shape {got} but must have x's shape {expected}: each row's softmax is as long as the row.",
    },
    "lesson04.tsm_not_triton": {
        "bn": "ফল এসেছে PyTorch-এর নিজের ফাংশন থেকে ({names}), তোমার Triton kernel থেকে নয়। exp, max, sum আর ভাগ — সব kernel-এর ভেতরে tl.exp, tl.max, tl.sum দিয়ে করো; wrapper শুধু y বানায় আর kernel লঞ্চ করে।",
        "en": "The result came from PyTorch's own functions ({names}), not from your Triton kernel. Do exp, max, sum and the division inside the kernel with tl.exp, tl.max, tl.sum; the wrapper only allocates y and launches the kernel.",
    },
    "lesson04.tsm_no_max": {
        "bn": "বড় মানের সারিতে ফল inf/nan হয়েছে: exp(200) float32-এ অসীম (inf)। exp নেওয়ার আগে সারির সবচেয়ে বড় মানটি বিয়োগ করো: x = x - tl.max(x, axis=0) — softmax একই থাকে, কিন্তু সবচেয়ে বড় exp হয় 1।",
        "en": "Rows with large values gave inf/nan: exp(200) is infinite in float32. Subtract the row's maximum before exp: x = x - tl.max(x, axis=0) — the softmax is unchanged, but the largest exp becomes 1.",
    },
    "lesson04.tsm_not_finite": {
        "bn": "ফলে inf বা nan আছে, অথচ ইনপুটের মান ছোট। মাস্কের বাইরের জায়গা (other=...) আর ভাগের হর দেখো: হর কখনো শূন্য হবে না যদি প্যাডিং -inf হয় আর সারির সর্বোচ্চটি বিয়োগ করা থাকে।",
        "en": "The result holds inf or nan although the inputs are small. Check the padding outside the mask (other=...) and the denominator: it is never zero when the padding is -inf and the row's maximum is subtracted.",
    },
    "lesson04.tsm_zero_padding": {
        "bn": "সারির দৈর্ঘ্য 2-এর ঘাত না হলে ফল ভুল: মাস্কের বাইরের জায়গা 0 দিয়ে ভরেছ, তাই সেগুলোর exp(0 − max) যোগফলে ঢুকে যাচ্ছে। tl.load(..., mask=mask, other=-float('inf')) দাও: exp(-inf) = 0।",
        "en": "Wrong when the row length is not a power of two: the padding outside the mask is 0, so exp(0 − max) of each padded slot enters the sum. Use tl.load(..., mask=mask, other=-float('inf')): exp(-inf) = 0.",
    },
    "lesson04.tsm_row_stride": {
        "bn": "সাধারণ টেনসরে ঠিক, কিন্তু x যখন একটি চওড়া টেনসরের টুকরো (x = wide[:, 3:30]), তখন ভুল: এক সারি থেকে পরের সারিতে যেতে n_cols নয়, x.stride(0) ঘর এগোতে হয়। kernel-এ row_stride পাঠাও (অথবা wrapper-এ আগে x = x.contiguous())।",
        "en": "Right on ordinary tensors, wrong when x is a slice of a wider tensor (x = wide[:, 3:30]): going from one row to the next moves x.stride(0) elements, not n_cols. Pass the row stride to the kernel (or make x contiguous in the wrapper first).",
    },
    "lesson04.tsm_column_stride": {
        "bn": "সারি-একটানা x-এ ঠিক, কিন্তু x যখন ট্রান্সপোজ (x = a.t()), তখন ভুল: তখন এক সারির পাশাপাশি ঘরগুলো মেমরিতে পাশাপাশি নেই (x.stride(1) = {cols_apart}, 1 নয়)। wrapper-এ আগে x = x.contiguous() করো, অথবা kernel-এ দুটো stride-ই পাঠাও।",
        "en": "Right on a row-contiguous x, wrong when x is transposed (x = a.t()): a row's neighbouring entries are then not side by side in memory (x.stride(1) = {cols_apart}, not 1). Make x contiguous in the wrapper first, or pass both strides to the kernel.",
    },
    "lesson04.tsm_whole_tensor": {
        "bn": "softmax নেওয়া হয়েছে পুরো টেনসরের উপর একসাথে। প্রতিটি সারি আলাদা: প্রতি সারিতে একটি প্রোগ্রাম (grid = (n_rows,)), আর row = tl.program_id(0) দিয়ে সারিটি খুঁজে নাও।",
        "en": "The softmax was taken over the whole tensor at once. Each row is separate: one program per row (grid = (n_rows,)), and find the row with row = tl.program_id(0).",
    },
    "lesson04.tsm_columns": {
        "bn": "softmax নেওয়া হয়েছে কলাম বরাবর (dim=0)। এখানে প্রতিটি সারির softmax চাই (dim=-1): একটি প্রোগ্রাম একটি সারির সব কলাম পড়ে।",
        "en": "The softmax was taken along the columns (dim=0). Each row's softmax is wanted here (dim=-1): one program reads all the columns of one row.",
    },
    "lesson04.tsm_no_normalise": {
        "bn": "exp ঠিক আছে, কিন্তু যোগফল দিয়ে ভাগ করা হয়নি: প্রতিটি সারির মানের যোগফল 1 হতে হবে — y = num / tl.sum(num, axis=0)।",
        "en": "The exp is right but not divided by the sum: each row must add up to 1 — y = num / tl.sum(num, axis=0).",
    },
    "lesson04.tsm_wrong": {
        "bn": "ফল torch.softmax(x, dim=-1)-এর সাথে মেলেনি (ক্ষেত্র: {case}, সবচেয়ে বড় পার্থক্য {diff:.3g})। ধাপগুলো দেখো: মাস্কসহ সারি পড়া (other=-inf), max বিয়োগ, exp, যোগফল দিয়ে ভাগ, মাস্কসহ লেখা।",
        "en": "The result does not match torch.softmax(x, dim=-1) (case: {case}, largest difference {diff:.3g}). Check the steps: load the row with a mask (other=-inf), subtract the max, exp, divide by the sum, store with the mask.",
    },
    "lesson04.tsm_ok": {
        "bn": "ঠিক! তোমার Triton kernel সব ক্ষেত্রে torch.softmax-এর সাথে মিলেছে: বিজোড় দৈর্ঘ্যের সারি, বড় মান, আর চওড়া টেনসরের টুকরো।",
        "en": "Correct! Your Triton kernel matches torch.softmax in every case: rows of odd length, large values, and a slice of a wider tensor.",
    },
    # exercise 04, task 4: a training step without graph breaks
    "lesson04.gb_mutated": {
        "bn": "তোমার ফাংশন ইনপুট (x, y বা মডেলের ওজন) বদলে ফেলেছে। ধাপটি শুধু loss হিসাব করবে; কিছু ইন-প্লেস বদলাবে না।",
        "en": "Your function changed its inputs (x, y or the model's weights). The step only computes the loss; it changes nothing in place.",
    },
    "lesson04.gb_not_tensor": {
        "bn": "fast_step একটি টেনসর loss ফেরত দেবে (F.cross_entropy-র ফল), যাতে পরে loss.backward() চলে। তুমি ফেরত দিয়েছ: {got}। .item() দিলে সংখ্যাটা গ্রাফ থেকে বেরিয়ে যায়।",
        "en": "fast_step must return the loss as a tensor (F.cross_entropy's result), so that loss.backward() works afterwards. You returned: {got}. .item() takes the number out of the graph.",
    },
    "lesson04.gb_shape": {
        "bn": "loss একটিমাত্র সংখ্যা (আকার ()), কিন্তু তোমার ফলের আকার {shape}। F.cross_entropy-র ডিফল্ট গড়টাই ফেরত দাও।",
        "en": "The loss is a single number (shape ()), but yours has shape {shape}. Return F.cross_entropy's default mean.",
    },
    "lesson04.gb_no_grad": {
        "bn": "ফেরত দেওয়া loss গ্রেডিয়েন্টের সাথে যুক্ত নয় (requires_grad=False): .detach(), torch.no_grad() বা .item() থেকে নতুন টেনসর বানানো — এসবে backward আর ওজন পর্যন্ত পৌঁছায় না।",
        "en": "The returned loss is not connected to the gradients (requires_grad=False): .detach(), torch.no_grad() or a new tensor made from .item() cut backward off from the weights.",
    },
    "lesson04.gb_branch_removed": {
        "bn": "ছোট অ্যাক্টিভেশনে ঠিক, কিন্তু যেখানে |h| 3 ছাড়ায় সেখানে ভুল: তুমি if-শাখাটি মুছে ফেলেছ। শাখা মুছলে গ্রাফ ভাঙে না ঠিকই, কিন্তু হিসাব বদলে যায়। শর্তটি টেনসরেই রাখো: torch.where(peak > 3, h / peak * 3, h)।",
        "en": "Right for small activations, wrong where |h| exceeds 3: you deleted the if-branch. That removes the break but changes the maths. Keep the condition as a tensor: torch.where(peak > 3, h / peak * 3, h).",
    },
    "lesson04.gb_always_scaled": {
        "bn": "বড় অ্যাক্টিভেশনে ঠিক, কিন্তু ছোটগুলোতে ভুল: এখন সবসময় h / peak * 3 করা হচ্ছে। আসল কোড শুধু peak > 3 হলে ভাগ করে — শর্তটি torch.where দিয়ে রাখো।",
        "en": "Right for large activations, wrong for small ones: h / peak * 3 now happens always. The original divides only when peak > 3 — keep the condition with torch.where.",
    },
    "lesson04.gb_clamped": {
        "bn": "h.clamp(-3, 3) আর আসল কোড এক নয়: আসল কোড পুরো টেনসরকে একই অনুপাতে ছোট করে (h / peak * 3), clamp শুধু বড়গুলো কেটে দেয়। একই হিসাব রাখো, শুধু শর্তটি টেনসরে আনো।",
        "en": "h.clamp(-3, 3) is not the original: the original shrinks the whole tensor by one factor (h / peak * 3), clamp only cuts the large entries. Keep the same maths; only move the condition into a tensor.",
    },
    "lesson04.gb_wrong": {
        "bn": "loss মেলেনি: তোমার {got:.6g}, আসল slow_step-এর {expected:.6g}। গ্রাফ ভাঙা সরাতে গিয়ে হিসাব বদলানো যাবে না: print আর .item() বাদ দাও, if-কে torch.where বানাও — বাকিটা একই থাকে।",
        "en": "The loss does not match: yours {got:.6g}, the original slow_step's {expected:.6g}. Removing graph breaks must not change the maths: drop the prints and .item(), turn the if into torch.where — the rest stays as it was.",
    },
    "lesson04.gb_grads": {
        "bn": "loss মিলেছে, কিন্তু ওজনের গ্রেডিয়েন্ট মেলেনি: কোথাও গ্রাফ কেটে গেছে (যেমন peak-এ .detach() বা .item() থেকে বানানো সংখ্যা)। peak টেনসরটিই ব্যবহার করো।",
        "en": "The loss matches but the weights' gradients do not: the graph is cut somewhere (e.g. .detach() on peak, or a number made with .item()). Use the peak tensor itself.",
    },
    "lesson04.gb_explain_failed": {
        "bn": "torch._dynamo.explain তোমার ফাংশনটি ট্রেস করতে পারেনি: {error}",
        "en": "torch._dynamo.explain could not trace your function: {error}",
    },
    "lesson04.gb_breaks": {
        "bn": "ফল ঠিক, কিন্তু এখনো {breaks}টি গ্রাফ ব্রেক (graph break) আছে। torch._dynamo.explain যা বলছে: {reasons}। print আর .item() সরাও (দরকার হলে টেনসর ফেরত দিয়ে বাইরে প্রিন্ট করো), আর টেনসরের মানের উপর Python-এর if-এর বদলে torch.where।",
        "en": "The result is right, but {breaks} graph break(s) remain. torch._dynamo.explain says: {reasons}. Remove print and .item() (return a tensor and print outside if you need it), and replace a Python if on a tensor's value with torch.where.",
    },
    "lesson04.gb_no_graph": {
        "bn": "ভাঙন নেই, কিন্তু গ্রাফের সংখ্যা {graphs} — ঠিক 1টি হওয়ার কথা। torch.compiler.disable বা এমন কিছু দিয়ে কম্পাইল এড়িয়ে যেয়ো না: পুরো ধাপটি একটি গ্রাফে আসা চাই।",
        "en": "No breaks, but {graphs} graph(s) — there should be exactly 1. Do not skip compiling with torch.compiler.disable or the like: the whole step must come out as one graph.",
    },
    "lesson04.gb_ok": {
        "bn": "ঠিক! একটিমাত্র গ্রাফ, কোনো গ্রাফ ব্রেক নেই, আর loss ও গ্রেডিয়েন্ট আসল ধাপের সাথে মিলেছে — ছোট আর বড় দুই রকম অ্যাক্টিভেশনেই।",
        "en": "Correct! One graph, no graph breaks, and the loss and gradients match the original step — for both small and large activations.",
    },
    # notebook: attention, CUDA Graphs, the Triton backward
    "lesson04.fwd_bwd_ms": {"bn": "ফরওয়ার্ড+ব্যাকওয়ার্ড (ms)", "en": "forward+backward (ms)"},
    "lesson04.saved_mb": {"bn": "ব্যাকওয়ার্ডের জন্য জমা (MB)", "en": "saved for backward (MB)"},
    "lesson04.peak_mb": {"bn": "সর্বোচ্চ মেমরি (MB, শুধু CUDA)", "en": "peak memory (MB, CUDA only)"},
    "lesson04.max_diff": {"bn": "হাতে লেখা থেকে সর্বোচ্চ পার্থক্য", "en": "max difference from hand-written"},
    "lesson04.seq_len": {"bn": "ক্রমের দৈর্ঘ্য T (টোকেন)", "en": "sequence length T (tokens)"},
    "lesson04.attn_mem_title": {"bn": "ব্যাকওয়ার্ডের জন্য জমা রাখা মেমরি", "en": "memory saved for backward"},
    "lesson04.attn_time_title": {"bn": "অ্যাটেনশন: ফরওয়ার্ড + ব্যাকওয়ার্ড ({device})", "en": "attention: forward + backward ({device})"},
    "lesson04.mode": {"bn": "রূপ", "en": "mode"},
    "lesson04.us_per_call": {"bn": "প্রতি কলে সময় (µs)", "en": "time per call (µs)"},
    "lesson04.v.attn_saved": {
        "bn": "T={seq}-এ হাতে লেখা অ্যাটেনশন q, k, v ছাড়াও ব্যাকওয়ার্ডের জন্য জমা রেখেছে {naive:.3g} MB, SDPA {sdpa:.3g} MB — {ratio:.3g} গুণ কম।",
        "en": "At T={seq} the hand-written attention saved {naive:.3g} MB for backward beyond q, k, v; SDPA {sdpa:.3g} MB — {ratio:.3g}× less.",
    },
    "lesson04.v.attn_growth_square": {
        "bn": "T দ্বিগুণ করলে হাতে লেখার জমা মেমরি বেড়েছে {naive:.2f} গুণ (≈4: T² — পুরো T×T ম্যাট্রিক্স), SDPA-র {sdpa:.2f} গুণ (≈2: T — প্রতি সারিতে একটি সংখ্যা, বাকিটা ব্যাকওয়ার্ডে আবার হিসাব)।",
        "en": "Doubling T multiplied the hand-written version's saved memory by {naive:.2f} (≈4: T² — the whole T×T matrix) and SDPA's by {sdpa:.2f} (≈2: T — one number per row, the rest recomputed in backward).",
    },
    "lesson04.v.attn_growth_other": {
        "bn": "T দ্বিগুণ করলে জমা মেমরি বেড়েছে: হাতে লেখায় {naive:.2f} গুণ, SDPA-তে {sdpa:.2f} গুণ। এই ডিভাইসে SDPA যে ব্যাকএন্ড বেছেছে, সেটি T×T ম্যাট্রিক্স এড়ায়নি — উপরে কোন ব্যাকএন্ড চলেছে দেখো।",
        "en": "Doubling T multiplied the saved memory by {naive:.2f} (hand-written) and {sdpa:.2f} (SDPA). The backend SDPA picked on this device did not avoid the T×T matrix — see above which one ran.",
    },
    "lesson04.v.attn_peak": {"bn": "GPU-র সর্বোচ্চ মেমরি (q, k, v আর গ্রেডিয়েন্টসহ), T={seq}: হাতে লেখা {naive:.3g} MB, SDPA {sdpa:.3g} MB।", "en": "The GPU's peak memory (q, k, v and gradients included), T={seq}: hand-written {naive:.3g} MB, SDPA {sdpa:.3g} MB."},
    "lesson04.v.overhead_per_call": {
        "bn": "eager-এ একটি কল {total:.0f} µs, তাতে {launches}টি লঞ্চ: প্রতি লঞ্চে গড়ে {us:.1f} µs — এত ছোট অপারেশনে এই সময়ের প্রায় সবটাই ডাকার খরচ, গণনা নয়।",
        "en": "In eager one call takes {total:.0f} µs with {launches} launches: {us:.1f} µs per launch on average — with operations this small, nearly all of it is the cost of calling, not arithmetic.",
    },
    "lesson04.v.overhead_bound": {"bn": "প্রমাণ: batch {factor} গুণ করলে (কাজ {factor} গুণ) সময় বেড়েছে মাত্র {ratio:.2f} গুণ — কাজটা ওভারহেড-সীমিত।", "en": "The proof: a {factor}× batch ({factor}× the work) took only {ratio:.2f}× the time — the work is overhead-bound."},
    "lesson04.v.overhead_not_bound": {"bn": "batch {factor} গুণ করলে সময় বেড়েছে {ratio:.2f} গুণ — এই মেশিনে এই আকারে কাজটা আর পুরোপুরি ওভারহেড-সীমিত নয়।", "en": "A {factor}× batch took {ratio:.2f}× the time — at this size the work is no longer purely overhead-bound on this machine."},
    "lesson04.v.graphs_not_here": {"bn": "CUDA Graph এখানে ({device}) মাপা হয়নি: এটি শুধু CUDA-তে কাজ করে। উপরের প্রতি-লঞ্চ খরচই সেই অংশ, যা GPU-তে CUDA Graph সরিয়ে দেয়।", "en": "CUDA Graphs were not measured here ({device}): they work on CUDA only. The per-launch cost above is the part CUDA Graphs remove on a GPU."},
    # verdicts that only report a ratio (lesson04 verdicts.compare): "N× slower", never "0.1× faster"
    "lesson04.v.cmp_faster": {"bn": "{what}, {than}-এর চেয়ে {ratio:.2g} গুণ দ্রুত{where}।", "en": "{what} was {ratio:.2g}× faster than {than}{where}."},
    "lesson04.v.cmp_slower": {"bn": "{what}, {than}-এর চেয়ে {ratio:.2g} গুণ ধীর{where}।", "en": "{what} was {ratio:.2g}× slower than {than}{where}."},
    "lesson04.v.cmp_same": {"bn": "{what} আর {than}-এর সময়ের পার্থক্য 5%-এর কম{where}।", "en": "{what} and {than} differ by less than 5% in time{where}."},
    "lesson04.v.compile_off": {
        "bn": "কম্পাইল বন্ধ ছিল, তাই এখানে বলার মতো কোনো মাপ নেই।",
        "en": "Compiling was off, so there is no measurement to speak of here.",
    },
    "lesson04.v.no_cause": {
        "bn": "কারণ বলা হলো না: যে মাপের উপর এই ব্যাখ্যা দাঁড়াত, সেগুলো নির্ভরযোগ্য নয় (সময়গুলো একে অপরের বিরোধী)। মেশিন শান্ত হলে সেলটি আবার চালাও।",
        "en": "No cause is given: the measurements this explanation would stand on are not reliable (the times contradict each other). Run the cell again when the machine is quiet.",
    },
    "lesson04.chain": {"bn": "শিকল", "en": "the chain"},
    "lesson04.hand_written": {"bn": "হাতে লেখা অ্যাটেনশন", "en": "the hand-written attention"},
    "lesson04.v.gelu_bytes": {"bn": "গোনা হিসাব, মাপা নয়: F.gelu-র দুটি অপারেটর শিকলের চেয়ে {bytes:.1f} ভাগের এক ভাগ বাইট সরায় (যোগটা এখনও আলাদা; আদর্শ fused kernel আরও কম)।", "en": "Counted, not timed: F.gelu's two operators move 1/{bytes:.1f} of the chain's bytes (the add is still separate; an ideal fused kernel moves fewer)."},
    "lesson04.tsm_not_from_kernel": {"bn": "ফেরত দেওয়া softmax তোমার Triton kernel-এর লেখা নয়: যাচাই দেখেছে, kernel যে টেনসরে লিখেছে ফল সেটা নয় (বা পরে অন্য কোড তা বদলেছে)। kernel-এর আউটপুট টেনসর y-ই ফেরত দাও।", "en": "The softmax you returned is not what your Triton kernel wrote: the check saw that the result is not the tensor the kernel wrote into (or other code changed it afterwards). Return the kernel's output tensor y."},
    "lesson04.tsm_dtype": {"bn": "ফলের ডেটা টাইপ {got}, কিন্তু ইনপুট {want}: softmax ইনপুটের ডেটা টাইপেই ফেরত দাও (torch.empty_like(x))।", "en": "The result's dtype is {got} but the input's is {want}: return the softmax in the input's dtype (torch.empty_like(x))."},
    "lesson04.gb_max_not_abs": {"bn": "সব অ্যাক্টিভেশন বড় আর ঋণাত্মক হলে তোমার ধাপ slow_step-এর সাথে মেলে না: শর্তটি h.abs().max() দিয়ে, h.max() দিয়ে নয় — −20-এর পরম মানও 3-এর বেশি।", "en": "When every activation is large and negative your step does not match slow_step: the condition uses h.abs().max(), not h.max() — the magnitude of −20 is above 3 too."},
    "lesson04.alone_short": {"bn": "একা", "en": "alone"},
    "lesson04.roof_row": {"bn": "ছাদের মাপ", "en": "roof measurement"},
    "lesson04.v.gelu_memory_by_roofline": {
        "bn": "রুফলাইন অনুযায়ী: F.gelu প্রতি বাইটে প্রায় {intensity:.2g} FLOP করে, আর এই মেশিনের রিজ পয়েন্ট (ridge point) {ridge:.3g} FLOP/বাইট (এখনই মাপা {peak:.3g} GFLOP/s ÷ {roof:.3g} GB/s) — তাই কাজটা মেমরি-সীমিত।",
        "en": "By the roofline: F.gelu does about {intensity:.2g} FLOP per byte, and this machine's ridge point is {ridge:.3g} FLOP/byte (measured now: {peak:.3g} GFLOP/s ÷ {roof:.3g} GB/s) — so the work is memory-bound.",
    },
    "lesson04.v.gelu_compute_by_roofline": {
        "bn": "রুফলাইন অনুযায়ী: F.gelu প্রতি বাইটে প্রায় {intensity:.2g} FLOP করে, আর এই মেশিনের রিজ পয়েন্ট মাত্র {ridge:.3g} FLOP/বাইট (এখনই মাপা {peak:.3g} GFLOP/s ÷ {roof:.3g} GB/s) — তাই এখানে কাজটা গণনা-সীমিত।",
        "en": "By the roofline: F.gelu does about {intensity:.2g} FLOP per byte, and this machine's ridge point is only {ridge:.3g} FLOP/byte (measured now: {peak:.3g} GFLOP/s ÷ {roof:.3g} GB/s) — so here the work is compute-bound.",
    },
    "lesson04.v.gelu_share": {"bn": "এই রানে F.gelu সরিয়েছে {gbs:.3g} GB/s — মাপা মেমরি-ছাদের ({roof:.3g} GB/s) {share:.0%}।", "en": "In this run F.gelu moved {gbs:.3g} GB/s — {share:.0%} of the measured memory roof ({roof:.3g} GB/s)."},
    "lesson04.v.gelu_follows_bytes": {
        "bn": "এই রানে F.gelu সরিয়েছে {gbs:.3g} GB/s — মাপা মেমরি-ছাদের ({roof:.3g} GB/s) {share:.0%}: ছাদের কাছে, তাই সময় চলে বাইটের সাথে, আর বাইট কমালে সময়ও প্রায় ততটাই কমে।",
        "en": "In this run F.gelu moved {gbs:.3g} GB/s — {share:.0%} of the measured memory roof ({roof:.3g} GB/s): near the roof, so time follows bytes, and fewer bytes mean about as much less time.",
    },
    "lesson04.v.gelu_far_below": {
        "bn": "এই রানে F.gelu সরিয়েছে মাত্র {gbs:.3g} GB/s — মাপা মেমরি-ছাদের ({roof:.3g} GB/s) {share:.0%}: ছাদ থেকে অনেক নিচে, তাই এই মাপ থেকে বলা যায় না কী তাকে আটকেছে — বাইট কমালে সময় ততটা না-ও কমতে পারে। বড় টেনসরে (lab বা full মোড) আর শান্ত মেশিনে আবার মেপে দেখো।",
        "en": "In this run F.gelu moved only {gbs:.3g} GB/s — {share:.0%} of the measured memory roof ({roof:.3g} GB/s): far below the roof, so this measurement does not tell what held it back — fewer bytes need not mean as much less time. Measure again with larger tensors (lab or full mode) on a quiet machine.",
    },
    "lesson04.v.gelu_above_roof": {
        "bn": "সাবধান: F.gelu-র মাপা {gbs:.3g} GB/s তার নিজের মাপা ছাদের ({roof:.3g} GB/s) উপরে ({share:.0%}) — যা হতে পারে না; দুটি মাপের একটি ভুল (মেশিন ব্যস্ত, বা ছোট টেনসর ক্যাশে ধরে গেছে)। এর কোনো ব্যাখ্যা দেওয়া হলো না।",
        "en": "Careful: F.gelu's measured {gbs:.3g} GB/s is above its own measured roof ({roof:.3g} GB/s, {share:.0%}) — which cannot be; one of the two measurements is off (a busy machine, or a small tensor held in cache). No explanation is given for it.",
    },
    "lesson04.v.compile_no_gain": {
        "bn": "এখানে কম্পাইল করা রূপ দ্রুত হয়নি: এত ছোট কাজে কম্পাইলের {cold:.1f} সেকেন্ড কখনো উঠে আসে না।",
        "en": "Here the compiled version was not faster: for work this small the compile's {cold:.1f} s never pays back.",
    },
    "lesson04.v.switch_depends": {
        "bn": "{name}: একা (FP32-এর উপর) আর আগের ধাপের উপর বসিয়ে এর প্রভাব উল্টো দিকে — এর লাভ নির্ভর করে কীসের উপর বসানো হলো তার উপর।",
        "en": "{name}: alone (on FP32) and stacked on the stage before, its effect goes opposite ways — its gain depends on what it is stacked on.",
    },
    "lesson04.v.mfu": {
        "bn": "MFU ({stage}) = {mfu:.1%} = অর্জিত {achieved:.3g} TFLOP/s ÷ সর্বোচ্চ {peak:.3g} TFLOP/s; সর্বোচ্চ মানটি: {source}।",
        "en": "MFU ({stage}) = {mfu:.1%} = achieved {achieved:.3g} TFLOP/s ÷ peak {peak:.3g} TFLOP/s; the peak: {source}.",
    },
    "lesson04.v.mfu_unknown": {"bn": "MFU দেখানো হলো না: সর্বোচ্চ মান জানা নেই বা হিসাব 100%-এর বেশি হয় ({source})।", "en": "No MFU shown: the peak is unknown or the value would exceed 100% ({source})."},
    "lesson04.v.attn_inconsistent": {
        "bn": "{variant}: T={t1}-এ {ms1:.3g} ms, অথচ T={t2}-এ (বেশি কাজ) {ms2:.3g} ms — কাজ বাড়ল, সময় কমল: এই মাপ নিজের সাথেই বিরোধী (ব্যস্ত মেশিন বা প্রথম কলের খরচ), এর ব্যাখ্যা দেওয়া হলো না।",
        "en": "{variant}: {ms1:.3g} ms at T={t1}, yet {ms2:.3g} ms at T={t2} (more work) — the work grew and the time fell: the measurement contradicts itself (a busy machine or a first call's cost), and no explanation is given.",
    },
    "lesson04.v.attn_gain_memory": {"bn": "তাই এই ডিভাইসে T={seq}-এ SDPA-র লাভ মেমরিতে, গতিতে নয়।", "en": "So on this device at T={seq}, SDPA's gain is memory, not speed."},
    "lesson04.mfu_col": {"bn": "MFU (÷ {peak:.3g} TFLOP/s)", "en": "MFU (÷ {peak:.3g} TFLOP/s)"},
    "lesson04.mfu_peak_note": {"bn": "MFU = অর্জিত ÷ সর্বোচ্চ {peak:.3g} TFLOP/s", "en": "MFU = achieved ÷ peak {peak:.3g} TFLOP/s"},
    "lesson04.alone_col": {"bn": "শুধু এই সুইচ, FP32-এর উপর (×)", "en": "this switch alone, on FP32 (×)"},
    "lesson04.tsm_no_kernel": {
        "bn": "তোমার softmax একটিও Triton kernel লঞ্চ করেনি (যাচাই-সেল লঞ্চ গোনে): ফল এসেছে অন্য কোথাও থেকে — NumPy, PyTorch বা সাধারণ Python। কাজটা হলো নিজের @triton.jit kernel লেখা আর softmax_kernel[(n_rows,)](...) দিয়ে লঞ্চ করা।",
        "en": "Your softmax launched no Triton kernel (the check counts launches): the result came from elsewhere — NumPy, PyTorch or plain Python. The task is to write your own @triton.jit kernel and launch it with softmax_kernel[(n_rows,)](...).",
    },
    "lesson04.tsm_global_max": {
        "bn": "যে সারিগুলোর মান পুরো টেনসরের সবচেয়ে বড় মানের অনেক নিচে, সেখানে ফল nan: তুমি পুরো টেনসরের একটিমাত্র max বিয়োগ করেছ, তাই ওই সারিতে সব exp শূন্য হয়ে 0/0 হয়েছে। প্রতিটি সারির নিজের max বিয়োগ করো: kernel-এর ভেতরে x - tl.max(x, axis=0), যেখানে x একটিই সারি।",
        "en": "Rows whose values lie far below the whole tensor's largest value give nan: you subtracted one maximum of the whole tensor, so every exp in those rows became zero and 0/0 followed. Subtract each row's own maximum: x - tl.max(x, axis=0) inside the kernel, where x is one row.",
    },
    "lesson04.adam_no_foreach": {
        "bn": "ফল ঠিক, কিন্তু একটিও torch._foreach_* কল হয়নি (যাচাই-সেল কলগুলো দেখে): এই কাজের শিক্ষা হলো এক কলে সব টেনসরের একই অপারেশন — torch._foreach_mul_, _foreach_add_, _foreach_addcmul_, _foreach_sqrt, _foreach_addcdiv_ দিয়ে লেখো।",
        "en": "The result is right, but not one torch._foreach_* call was made (the check watches the calls): the point of this task is one call for the same operation on every tensor — write it with torch._foreach_mul_, _foreach_add_, _foreach_addcmul_, _foreach_sqrt, _foreach_addcdiv_.",
    },
    "lesson04.adam_per_tensor_loop": {
        "bn": "ফল ঠিক, কিন্তু টেনসরপ্রতি আলাদা কল হচ্ছে: 2টি টেনসরে {op} ডাকা হলো {few} বার, 7টিতে {many} বার — অর্থাৎ একটি Python লুপ প্রতিটি টেনসরে আলাদা অপারেশন চালাচ্ছে। foreach রূপে কলের সংখ্যা টেনসরের সংখ্যার উপর নির্ভর করে না: লুপ সরিয়ে পুরো তালিকায় torch._foreach_* ডাকো।",
        "en": "The result is right, but calls are made per tensor: {op} was called {few} times with 2 tensors and {many} times with 7 — a Python loop runs a separate operation on each tensor. In the foreach form the number of calls does not depend on the number of tensors: drop the loop and call torch._foreach_* on the whole lists.",
    },
    "lesson04.launch_not_measured": {
        "bn": "তোমার ফাংশন {n}টি টেনসরের কোনো অপটিমাইজার ধাপ চালায়নি (যাচাই-সেল torch.optim-এর ধাপ গোনে), তাই সংখ্যাটা মাপা নয় — অনুমান বা সূত্র। কাজটা হলো মাপা: {n}টি প্যারামিটার, make_optimizer, ওয়ার্ম-আপের একটি opt.step(), তারপর count_launches।",
        "en": "Your function ran no optimizer step over {n} tensors (the check counts torch.optim's steps), so the number is not measured — a guess or a formula. The task is to measure: {n} parameters, make_optimizer, one warm-up opt.step(), then count_launches.",
    },
}
