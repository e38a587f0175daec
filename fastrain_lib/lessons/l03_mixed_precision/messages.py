"""Messages of lesson 03 (mixed precision): panel, plots, exercise checks."""

MESSAGES = {
    # panel
    "lesson03.panel_title": {"bn": "মিশ্র প্রিসিশন: মোড, batch আকার আর মডেলের চওড়া বদলে দেখো", "en": "Mixed precision: change the mode, batch size and model width"},
    "lesson03.modes": {"bn": "প্রিসিশন মোড", "en": "precision modes"},
    "lesson03.width": {"bn": "মডেলের চওড়া (hidden)", "en": "model width (hidden)"},
    "lesson03.time_per_step": {"bn": "প্রতি ধাপে সময় (ms, মধ্যমা)", "en": "time per step (ms, median)"},
    "lesson03.activation_kib": {"bn": "অ্যাক্টিভেশন মেমরি (KiB)", "en": "activation memory (KiB)"},
    "lesson03.peak_mib": {"bn": "GPU সর্বোচ্চ মেমরি (MiB)", "en": "GPU peak memory (MiB)"},
    "lesson03.skipped": {"bn": "বাদ পড়া ধাপ", "en": "skipped steps"},
    "lesson03.loss_curve": {"bn": "লস, ধাপে ধাপে", "en": "loss, step by step"},
    "lesson03.panel_fig_title": {"bn": "{device}-এ মাপা: batch {batch}, hidden {width}", "en": "measured on {device}: batch {batch}, hidden {width}"},
    "lesson03.pick_a_mode": {"bn": "অন্তত একটি প্রিসিশন মোড বেছে নাও।", "en": "Pick at least one precision mode."},
    "lesson03.unsupported_here": {"bn": "এই ডিভাইসে চলে না, বাদ দেওয়া হলো: {modes}", "en": "cannot run on this device, left out: {modes}"},
    "lesson03.panel_note": {
        "bn": "সময় এই মেশিনে এখনই মাপা (প্রথম ধাপ বাদ দিয়ে মধ্যমা); অ্যাক্টিভেশন মেমরি saved_tensors_hooks দিয়ে গোনা বাইট — যেকোনো হার্ডওয়্যারে একই।",
        "en": "Times measured on this machine now (median, first step left out); activation memory is bytes counted with saved_tensors_hooks — the same on any hardware.",
    },
    # plots in the notebook
    # checks
    "lesson03.check.step_ok": {"bn": "ঠিক আছে! ধাপটি রেফারেন্সের সাথে মেলে, inf এলে ধাপ বাদ পড়ে আর স্কেল অর্ধেক হয়।", "en": "Correct! The step matches the reference; on inf the step is skipped and the scale halved."},
    "lesson03.check.deprecated_api": {
        "bn": "torch.cuda.amp পুরোনো (deprecated) API — PyTorch 2.4 থেকে FutureWarning দেয়, আর CUDA না থাকলে autocast বন্ধ করে দেয় (একটি UserWarning দিয়ে জানিয়ে), তাই CPU-তে ফরওয়ার্ড fp32-এই চলে। এর বদলে torch.amp.autocast(device, dtype=dtype) আর torch.amp.GradScaler(device) ব্যবহার করো।",
        "en": "torch.cuda.amp is the deprecated API — it warns since PyTorch 2.4, and without CUDA it disables autocast (saying so in a UserWarning), so on a CPU the forward pass stays in fp32. Use torch.amp.autocast(device, dtype=dtype) and torch.amp.GradScaler(device) instead.",
    },
    "lesson03.check.backward_in_autocast": {
        "bn": "backward() autocast-এর ভেতরে ডাকা হয়েছে। autocast শুধু ফরওয়ার্ড পাস আর লসের চারপাশে রাখো; with ব্লক থেকে বেরিয়ে scaler.scale(loss).backward() ডাকো — ব্যাকওয়ার্ড নিজে থেকেই ফরওয়ার্ডের dtype মেনে চলে।",
        "en": "backward() is called inside autocast. Keep autocast around the forward pass and the loss only; call scaler.scale(loss).backward() after the with block — backward follows the forward's dtypes by itself.",
    },
    "lesson03.check.no_autocast": {"bn": "মডেলের ফরওয়ার্ড পাস নিচু প্রিসিশনে চলেনি। ফরওয়ার্ড আর লস with torch.amp.autocast(device, dtype=dtype): ব্লকের ভেতরে লেখো।", "en": "The forward pass did not run in low precision. Put the forward pass and the loss inside with torch.amp.autocast(device, dtype=dtype):."},
    "lesson03.check.not_skipped": {
        "bn": "গ্রেডিয়েন্টে inf থাকা সত্ত্বেও ওজন বদলে গেছে (বা nan হয়ে গেছে)। optimizer.step() সরাসরি ডেকো না; scaler.step(optimizer) ডাকো — inf/nan পেলে সে নিজেই ধাপটি বাদ দেয়।",
        "en": "The weights changed (or became nan) although a gradient was inf. Do not call optimizer.step() directly; call scaler.step(optimizer) — it skips the step itself on inf/nan.",
    },
    "lesson03.check.no_scaler_step": {"bn": "scaler.update() ডাকার আগে scaler.step(optimizer) ডাকোনি। optimizer.step()-এর বদলে scaler.step(optimizer) লেখো।", "en": "scaler.update() was called without scaler.step(optimizer) before it. Write scaler.step(optimizer) instead of optimizer.step()."},
    "lesson03.check.not_scaled": {"bn": "লস স্কেল না করেই backward ডেকেছ (loss.backward())। fp16-এ ছোট গ্রেডিয়েন্ট তাতে শূন্য হয়ে যায়; লেখো scaler.scale(loss).backward()।", "en": "You called backward without scaling the loss (loss.backward()). In fp16 small gradients then vanish; write scaler.scale(loss).backward()."},
    "lesson03.check.missing_update": {
        "bn": "ধাপের পরে স্কেল বদলায়নি: scaler.update() ভুলে গেছ। এটা না ডাকলে inf এলে স্কেল অর্ধেক হয় না, ভালো ধাপের পরে বাড়েও না — প্রতিটি scaler.step(optimizer)-এর পরে scaler.update() ডাকো।",
        "en": "The scale did not change after the step: you forgot scaler.update(). Without it the scale is never halved after an inf nor grown after good steps — call scaler.update() after every scaler.step(optimizer).",
    },
    "lesson03.check.missing_zero_grad": {"bn": "প্রথম ধাপ ঠিক, দ্বিতীয়টি নয়: গ্রেডিয়েন্ট জমে যাচ্ছে। প্রতিটি ধাপের শুরুতে optimizer.zero_grad() ডাকো।", "en": "The first step is right, the second is not: gradients pile up. Call optimizer.zero_grad() at the start of each step."},
    "lesson03.check.wrong_update": {
        "bn": "ওজনের পরিবর্তন রেফারেন্সের সাথে মেলে না। ক্রমটা দেখো: zero_grad → autocast-এ ফরওয়ার্ড ও লস → scaler.scale(loss).backward() → scaler.step(optimizer) → scaler.update()। loss.backward() সরাসরি ডাকলে গ্রেডিয়েন্ট স্কেল হয় না।",
        "en": "The weight update does not match the reference. Check the order: zero_grad → forward and loss in autocast → scaler.scale(loss).backward() → scaler.step(optimizer) → scaler.update(). Calling loss.backward() directly leaves the gradients unscaled.",
    },
    "lesson03.check.clip_before_unscale": {
        "bn": "স্কেল করা গ্রেডিয়েন্ট ক্লিপ করেছ: তখন প্রতিটি গ্রেডিয়েন্ট স্কেলের (যেমন 1024) গুণ বড়, তাই ক্লিপিং অনেক বেশি কেটে ফেলে। ক্লিপ করার আগে scaler.unscale_(optimizer) ডাকো।",
        "en": "You clipped the scaled gradients: each is scale times (e.g. 1024×) too big, so clipping cuts far too much. Call scaler.unscale_(optimizer) before clipping.",
    },
    "lesson03.check.no_clip": {"bn": "গ্রেডিয়েন্ট ক্লিপ হয়নি। scaler.unscale_(optimizer)-এর পরে torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm) ডাকো।", "en": "The gradients were not clipped. Call torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm) after scaler.unscale_(optimizer)."},
    "lesson03.check.underflow_ok": {"bn": "ঠিক আছে! শূন্য নয় এমন মানগুলোর কত অংশ fp16-এ শূন্য হয়ে যায়, ঠিকঠাক গুনেছ।", "en": "Correct! You counted the share of nonzero values that become zero in fp16."},
    "lesson03.check.not_a_number": {"bn": "একটি সংখ্যা (float, 0 থেকে 1) ফেরত দাও, যেমন return share.item()।", "en": "Return a number (a float from 0 to 1), e.g. return share.item()."},
    "lesson03.check.count_not_share": {"bn": "ফলাফল 1-এর বেশি: তুমি সংখ্যা গুনেছ, অংশ নয়। শূন্য-হয়ে-যাওয়া মানের সংখ্যাকে শূন্য নয় এমন মানের মোট সংখ্যা দিয়ে ভাগ করো।", "en": "The result is above 1: you counted, not took a share. Divide the number lost by the number of nonzero values."},
    "lesson03.check.counted_zeros": {"bn": "যেসব মান শুরু থেকেই শূন্য, সেগুলোও গুনেছ। আগে grad[grad != 0] দিয়ে শূন্যগুলো বাদ দাও — ওরা fp16-এর কারণে হারায়নি।", "en": "You also counted values that were zero to begin with. Drop them first with grad[grad != 0] — fp16 did not lose them."},
    "lesson03.check.normal_not_subnormal": {
        "bn": "ক্ষুদ্রতম নর্মাল (finfo.tiny ≈ 6.1e-5)-এর চেয়ে ছোট সবকিছুকে হারানো ধরেছ, কিন্তু fp16 তার নিচেও সাবনর্মাল সংখ্যা (≈ 6e-8 পর্যন্ত) রাখতে পারে। সবচেয়ে নিশ্চিত উপায়: সত্যিই fp16-এ রূপান্তর করে দেখো কোনগুলো শূন্য হলো: x.to(torch.float16) == 0।",
        "en": "You counted everything below the smallest normal (finfo.tiny ≈ 6.1e-5) as lost, but fp16 keeps subnormals below it (down to ≈ 6e-8). The surest way: really convert and see which became zero: x.to(torch.float16) == 0.",
    },
    "lesson03.check.sign": {"bn": "শুধু ধনাত্মক মান দেখেছ; ঋণাত্মক ছোট গ্রেডিয়েন্টও শূন্য হয়ে যায়। চিহ্ন নির্বিশেষে সব শূন্য-নয় মান নাও।", "en": "You looked at positive values only; small negative gradients vanish too. Take every nonzero value, whatever its sign."},
    "lesson03.check.wrong_share": {"bn": "ফল মেলেনি: প্রত্যাশিত {expected:.4f}, পেয়েছি {got:.4f}। শূন্য-নয় মানগুলো নাও, fp16-এ রূপান্তর করো, কতগুলো শূন্য হলো তার অংশ ফেরত দাও।", "en": "Does not match: expected {expected:.4f}, got {got:.4f}. Take the nonzero values, convert to fp16, return the share that became zero."},
    # checks: gradient accumulation
    "lesson03.check.accum_ok": {"bn": "ঠিক আছে! জমানো গ্রেডিয়েন্ট রেফারেন্সের সাথে মেলে: ধাপপ্রতি একবার unscale_, তারপর ক্লিপিং, একটি step আর একটি update; inf এলে পুরো ধাপ বাদ।", "en": "Correct! The accumulated gradients match the reference: one unscale_ per step, then clipping, one step and one update; on inf the whole step is skipped."},
    "lesson03.check.accum_unscale_per_micro_batch": {
        "bn": "scaler.unscale_(optimizer) প্রতিটি মাইক্রো-ব্যাচের পরে ডাকা হয়েছে। গ্রেডিয়েন্ট জমানোর সময় সেগুলো স্কেল করাই থাকতে হবে; একই ধাপে দ্বিতীয়বার unscale_ ডাকলে PyTorch RuntimeError দেয়। লুপ শেষ হলে, ক্লিপিংয়ের ঠিক আগে, একবারই unscale_ ডাকো।",
        "en": "scaler.unscale_(optimizer) was called after every micro-batch. While gradients accumulate they must stay scaled; a second unscale_ in the same step raises a RuntimeError in PyTorch. Call unscale_ once, after the loop, right before clipping.",
    },
    "lesson03.check.accum_stepped_per_micro_batch": {"bn": "প্রতিটি মাইক্রো-ব্যাচে scaler.step ডাকা হয়েছে: তাহলে গ্রেডিয়েন্ট জমানোই হলো না। সব মাইক্রো-ব্যাচের backward শেষে একবার step করো।", "en": "scaler.step was called for every micro-batch: then nothing accumulates. Step once, after the backward of every micro-batch."},
    "lesson03.check.accum_update_per_micro_batch": {"bn": "scaler.update() একাধিকবার বা scaler.step-এর আগে ডাকা হয়েছে। update শুধু ধাপের শেষে, step-এর পরে, একবার — জমানোর মাঝখানে স্কেল বদলালে আগের আর পরের গ্রেডিয়েন্ট ভিন্ন স্কেলে যোগ হয়।", "en": "scaler.update() was called more than once or before scaler.step. Update once, at the end of the step, after step — a scale that changes mid-accumulation adds gradients scaled differently."},
    "lesson03.check.accum_clip_before_unscale": {"bn": "স্কেল করা গ্রেডিয়েন্ট ক্লিপ করেছ (unscale_ ছাড়া): সেগুলো স্কেলের গুণ বড়, তাই ক্লিপিং অনেক বেশি কাটে। লুপের পরে আগে scaler.unscale_(optimizer), তারপর clip_grad_norm_।", "en": "You clipped the scaled gradients (no unscale_): they are scale times too large, so clipping cuts far too much. After the loop: scaler.unscale_(optimizer) first, then clip_grad_norm_."},
    "lesson03.check.accum_not_averaged": {"bn": "প্রতিটি মাইক্রো-ব্যাচের লস মাইক্রো-ব্যাচের সংখ্যা k দিয়ে ভাগ করোনি: জমানো গ্রেডিয়েন্ট পুরো batch-এর গড়ের k গুণ। backward-এর আগে loss / len(micro_batches) নাও।", "en": "You did not divide each micro-batch loss by the number of micro-batches k: the accumulated gradient is k times the full batch's mean. Use loss / len(micro_batches) before backward."},
    "lesson03.check.accum_zero_grad_in_loop": {"bn": "zero_grad লুপের ভেতরে: প্রতিটি মাইক্রো-ব্যাচ আগেরগুলোর গ্রেডিয়েন্ট মুছে দেয়, শুধু শেষটির থাকে। zero_grad ধাপে একবার, লুপের আগে (বা step-এর পরে)।", "en": "zero_grad is inside the loop: each micro-batch erases the previous ones' gradients and only the last survives. Zero once per step, before the loop (or after step)."},
    "lesson03.check.accum_no_clip": {"bn": "গ্রেডিয়েন্ট ক্লিপ হয়নি। unscale_-এর পরে torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm) ডাকো।", "en": "The gradients were not clipped. Call torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm) after unscale_."},
    "lesson03.check.accum_wrong_update": {"bn": "ওজনের পরিবর্তন রেফারেন্সের সাথে মেলে না। ক্রম: zero_grad → প্রতিটি মাইক্রো-ব্যাচে autocast-এ ফরওয়ার্ড ও লস / k → scaler.scale(loss).backward() → লুপের পরে একবার unscale_ → ক্লিপ → step → update।", "en": "The weight update does not match the reference. Order: zero_grad → per micro-batch: forward and loss / k in autocast → scaler.scale(loss).backward() → after the loop, once: unscale_ → clip → step → update."},
    "lesson03.check.accum_summed_loss": {"bn": "ফেরত দেওয়া লস মাইক্রো-ব্যাচের লসগুলোর যোগফল ({k} গুণ বড়)। পুরো (কার্যকর) batch-এর লস ফেরত দাও: মাইক্রো-ব্যাচের লসের গড়।", "en": "The returned loss is the sum of the micro-batch losses ({k} times too large). Return the effective batch's loss: the mean of the micro-batch losses."},
    # checks: memory
    "lesson03.check.mem_ok": {"bn": "ঠিক আছে! সূত্র আর একটি ছোট মডেলে মাপা বাইট — দুটোর সাথেই মেলে।", "en": "Correct! It matches the formula and the bytes measured on a small model."},
    "lesson03.check.mem_not_a_dict": {"bn": "একটি dict ফেরত দাও, পাঁচটি চাবিসহ: 'weights', 'grads', 'optimizer', 'master', 'total' (মান বাইটে)। পেয়েছি: {got}", "en": "Return a dict with five keys: 'weights', 'grads', 'optimizer', 'master', 'total' (values in bytes). Got: {got}"},
    "lesson03.check.mem_total_not_sum": {"bn": "ভাগগুলো ঠিক, কিন্তু 'total' তাদের যোগফল নয়।", "en": "The parts are right, but 'total' is not their sum."},
    "lesson03.check.mem_bits_not_bytes": {"bn": "সংখ্যাগুলো 8 গুণ বড়: বিট গুনেছ, বাইট নয়। fp32 = 4 বাইট, fp16/bf16 = 2 বাইট।", "en": "The numbers are 8 times too large: you counted bits, not bytes. fp32 = 4 bytes, fp16/bf16 = 2 bytes."},
    "lesson03.check.mem_gigabytes": {"bn": "মানগুলো GB-তে দিয়েছ; বাইটে দাও (GB-তে দেখাতে চাইলে পরে 1e9 দিয়ে ভাগ কোরো)।", "en": "You gave GB; give bytes (divide by 1e9 only when you display them)."},
    "lesson03.check.mem_gibibytes": {"bn": "মানগুলো GiB-তে (2**30) দিয়েছ; বাইটে দাও।", "en": "You gave GiB (2**30); give bytes."},
    "lesson03.check.mem_no_optimizer_state": {"bn": "Adam-এর অবস্থা (state) বাদ পড়েছে: প্রতিটি প্যারামিটারের জন্য দুটি fp32 মোমেন্ট (গড় আর বর্গের গড়) = 8 বাইট।", "en": "Adam's state is missing: two fp32 moments per parameter (mean and mean of squares) = 8 bytes."},
    "lesson03.check.mem_one_moment": {"bn": "Adam দুটি মোমেন্ট রাখে (exp_avg আর exp_avg_sq), একটি নয়: 4 + 4 = 8 বাইট/প্যারামিটার।", "en": "Adam keeps two moments (exp_avg and exp_avg_sq), not one: 4 + 4 = 8 bytes/parameter."},
    "lesson03.check.mem_amp_halved_state": {"bn": "মিশ্র প্রিসিশন সবকিছু অর্ধেক করে না: Adam-এর মোমেন্ট fp32-এই থাকে (8 বাইট), আর fp32 মূল ওজন যোগ হয় (4 বাইট) — মোট 16 বাইট/প্যারামিটার, fp32-এর সমান।", "en": "Mixed precision does not halve everything: Adam's moments stay fp32 (8 bytes) and fp32 master weights are added (4 bytes) — 16 bytes/parameter in total, the same as fp32."},
    "lesson03.check.mem_amp_moments_16bit": {"bn": "Adam-এর মোমেন্ট fp32-এই থাকে (4 + 4 বাইট), 16 বিটে নয়।", "en": "Adam's moments stay in fp32 (4 + 4 bytes), not 16 bits."},
    "lesson03.check.mem_no_master": {"bn": "'amp'-এ fp32 মূল ওজন (master weights) বাদ পড়েছে: 16-বিট মডেলের পাশে প্রতিটি ওজনের fp32 কপি, 4 বাইট/প্যারামিটার — অপটিমাইজার সেটাই বদলায়।", "en": "In 'amp' the fp32 master weights are missing: beside the 16-bit model, an fp32 copy of each weight, 4 bytes/parameter — that is what the optimizer updates."},
    "lesson03.check.mem_fp32_grads_variant": {"bn": "তুমি গ্রেডিয়েন্টের fp32 কপিও গুনেছ (2 + 4 বাইট) — কিছু লাইব্রেরি (Nanotron) তা-ই করে, কিন্তু এই কাজের নিয়মে গ্রেডিয়েন্ট 16-বিট: 2 বাইট।", "en": "You also counted an fp32 copy of the gradients (2 + 4 bytes) — some libraries (Nanotron) do, but this task's convention keeps gradients 16-bit: 2 bytes."},
    "lesson03.check.mem_fp32_has_master": {"bn": "'fp32'-এ আলাদা মূল ওজন নেই: ওজন নিজেই fp32। master = 0।", "en": "'fp32' has no separate master weights: the weights already are fp32. master = 0."},
    "lesson03.check.mem_wrong_value": {"bn": "'{key}' মেলেনি (n = {n}, precision = '{precision}'): পেয়েছি {got} বাইট, অর্থাৎ প্যারামিটারপ্রতি {per} বাইট। টেবিলটা আবার দেখো।", "en": "'{key}' does not match (n = {n}, precision = '{precision}'): got {got} bytes, i.e. {per} bytes per parameter. Check the table again."},
    "lesson03.check.mem_measured_differs": {"bn": "সূত্রে ঠিক, কিন্তু ছোট মডেলে মাপার সাথে '{key}' মেলেনি (n = {n}, '{precision}'): তোমার {got}, মাপা {measured} বাইট।", "en": "Right by the formula, but '{key}' differs from the measurement on a small model (n = {n}, '{precision}'): yours {got}, measured {measured} bytes."},
    # checks: does it fit?
    "lesson03.check.fit_ok": {"bn": "ঠিক আছে! প্রতিটি ক্ষেত্রে (একটি ছোট মডেলে মাপা ক্ষেত্রসহ) কোনটি মেমরিতে ধরে, ঠিক বলেছ।", "en": "Correct! In every case (including one measured on a small model) you said rightly what fits."},
    "lesson03.check.fit_not_bools": {"bn": "{{'fp32': True/False, 'amp': True/False}} ফেরত দাও (bool)। পেয়েছি: {got}", "en": "Return {{'fp32': True/False, 'amp': True/False}} (bools). Got: {got}"},
    "lesson03.check.fit_ignored_activations": {"bn": "অ্যাক্টিভেশন বাদ দিয়েছ: ওজন + গ্রেডিয়েন্ট + Adam-এর পাশে ব্যাকওয়ার্ডের জন্য জমা রাখা অ্যাক্টিভেশনও মেমরি নেয় — প্রায়ই সবচেয়ে বড় অংশ।", "en": "You left out the activations: beside weights + gradients + Adam, the activations saved for backward take memory too — often the largest part."},
    "lesson03.check.fit_amp_halved_state": {"bn": "AMP-এ প্যারামিটারপ্রতি অবস্থা অর্ধেক ধরেছ; আসলে 2 + 2 + 4 + 8 = 16 বাইট, fp32-এর সমান। AMP শুধু অ্যাক্টিভেশন কমায়।", "en": "You halved the per-parameter state for AMP; it is 2 + 2 + 4 + 8 = 16 bytes, as in fp32. AMP shrinks only the activations."},
    "lesson03.check.fit_no_optimizer_state": {"bn": "Adam-এর দুটি মোমেন্ট (8 বাইট/প্যারামিটার) বাদ পড়েছে।", "en": "Adam's two moments (8 bytes/parameter) are missing."},
    "lesson03.check.fit_same_activations": {"bn": "AMP-এর জন্যও fp32-এর অ্যাক্টিভেশন ধরেছ; activation_bytes['amp'] ব্যবহার করো — 16-বিট অ্যাক্টিভেশন প্রায় অর্ধেক।", "en": "You used the fp32 activations for AMP too; use activation_bytes['amp'] — 16-bit activations are about half."},
    "lesson03.check.fit_always_fits": {"bn": "সবসময় 'ধরে' বলছে: একক দেখো — সব মান বাইটে, memory_bytes-ও বাইটে।", "en": "It always says 'fits': check the units — every value is in bytes, memory_bytes too."},
    "lesson03.check.fit_wrong": {"bn": "একটি ক্ষেত্রে ভুল: n = {n}, অ্যাক্টিভেশন fp32 {fp32} / amp {amp} বাইট, মেমরি {mem} বাইট। প্রয়োজন = প্যারামিটারপ্রতি 16 বাইট × n + সেই প্রিসিশনের অ্যাক্টিভেশন; ধরে যদি প্রয়োজন ≤ মেমরি।", "en": "Wrong in one case: n = {n}, activations fp32 {fp32} / amp {amp} bytes, memory {mem} bytes. Need = 16 bytes per parameter × n + that precision's activations; fits when need ≤ memory."},
    # notebook: inline texts
    # verdicts (# VERDICT cells): sentences computed from this run's numbers
    "lesson03.v.old_api_disabled": {
        "bn": "এখানে CUDA নেই: পুরোনো API autocast আর GradScaler দুটোই বন্ধ করে দিয়েছে — নীরবে নয়, উপরের UserWarning দিয়ে জানিয়ে। ফরওয়ার্ড তাই fp32-এই চলত।",
        "en": "No CUDA here: the old API disabled both autocast and GradScaler — not silently, it said so in the UserWarning above. The forward pass would have stayed in fp32.",
    },
    "lesson03.v.old_api_ran": {
        "bn": "এখানে CUDA আছে: পুরোনো API কাজ করেছে, শুধু অপ্রচলিত হওয়ার সতর্কবার্তা (FutureWarning) দিয়েছে।",
        "en": "CUDA is here: the old API worked and only gave the deprecation warning (FutureWarning).",
    },
    "lesson03.v.autocast_lists": {
        "bn": "এই ডিভাইসে ({device}) autocast নিচু প্রিসিশনে চালিয়েছে: {low}; float32-এ: {high}।",
        "en": "On this device ({device}) autocast ran in low precision: {low}; in float32: {high}.",
    },
    "lesson03.v.reductions_low": {
        "bn": "এখানে ({device}) {ops} নিচু প্রিসিশনে চলেছে: এই ডিভাইসের autocast-এর fp32-তালিকায় এরা নেই, তাই ইনপুটের dtype-ই মেনে চলে। (CUDA-র autocast এদের fp32-এ তোলে — তালিকা ডিভাইসভেদে আলাদা।)",
        "en": "Here ({device}) {ops} ran in low precision: they are not on this device's autocast fp32 list, so they follow their input's dtype. (CUDA's autocast lifts them to fp32 — the lists differ by device.)",
    },
    "lesson03.v.reductions_fp32": {
        "bn": "এখানে ({device}) {ops} float32-এ চলেছে: এই ডিভাইসের autocast এদের fp32-এ তোলে, কারণ যোগফল আর নরমালাইজেশনে সূক্ষ্মতা দরকার।",
        "en": "Here ({device}) {ops} ran in float32: this device's autocast lifts them to fp32, because sums and normalisations need the resolution.",
    },
    "lesson03.v.speed_faster": {"bn": "{mode}: fp32-এর চেয়ে {ratio:.2f}× দ্রুত।", "en": "{mode}: {ratio:.2f}× as fast as fp32."},
    "lesson03.v.speed_slower": {"bn": "{mode}: fp32-এর চেয়ে ধীর (গতি {ratio:.2f}×)।", "en": "{mode}: slower than fp32 (speed {ratio:.2f}×)."},
    "lesson03.v.speed_same": {"bn": "{mode}: fp32-এর প্রায় সমান ({ratio:.2f}×)।", "en": "{mode}: about the same as fp32 ({ratio:.2f}×)."},
    "lesson03.v.why_tf32_noop": {
        "bn": "   কেন: tf32 শুধু Ampere বা নতুন CUDA GPU-র টেনসর কোরে কাজ করে; এখানে এটা fp32-এর হুবহু এক কাজ — যে পার্থক্য দেখছ তা মাপের ওঠানামা (noise)।",
        "en": "   Why: tf32 only acts on the tensor cores of Ampere or newer CUDA GPUs; here it is exactly fp32's work — any difference is measurement noise.",
    },
    "lesson03.v.why_tf32_cuda": {
        "bn": "   কেন: এই GPU-র টেনসর কোর fp32 ম্যাট্রিক্স গুণ tf32-এ করে; ছোট মডেলে ম্যাট্রিক্স গুণ ধাপের ছোট অংশ হলে লাভও ছোট।",
        "en": "   Why: this GPU's tensor cores run fp32 matmuls in tf32; when matmuls are a small part of a small model's step, so is the gain.",
    },
    "lesson03.v.why_native_fast": {
        "bn": "   কেন: এই ডিভাইস {mode} হার্ডওয়্যারেই চালায় (টেনসর কোর বা AVX-512 BF16/AMX), আর অর্ধেক বাইট সরাতে হয়।",
        "en": "   Why: this device runs {mode} in hardware (tensor cores or AVX-512 BF16/AMX), and moves half the bytes.",
    },
    "lesson03.v.why_native_small": {
        "bn": "   কেন: ডিভাইস {mode} হার্ডওয়্যারেই চালায়, কিন্তু এত ছোট ধাপে সময় যায় kernel চালু আর dtype রূপান্তরে — মডেল চওড়া করলে (প্যানেলে hidden বাড়াও) লাভ দেখা দেয়।",
        "en": "   Why: the device runs {mode} in hardware, but a step this small is dominated by kernel launches and dtype casts — widen the model (raise hidden in the panel) to see the gain.",
    },
    "lesson03.v.why_no_native_matmul": {
        "bn": "   কেন: এই {device}-তে {mode}-এর গাণিতিক একক নেই — এখানে {mode} ম্যাট্রিক্স গুণ নিজেই fp32-এর {mm:.2f}× গতিতে চলে। PyTorch তখন {mode} গুণ চালায় সাধারণ (অপ্টিমাইজ-না-করা) পথে, প্রতিটি সংখ্যা রূপান্তর করে; fp32-এর গুণ চলে দ্রুত, হাতে-টিউন করা BLAS-এ। তার উপর autocast-এর রূপান্তর (আর fp16-এ GradScaler) যোগ হয়।",
        "en": "   Why: this {device} has no {mode} arithmetic units — here an {mode} matrix multiply alone runs at {mm:.2f}× fp32's speed. PyTorch then runs {mode} matmuls on a generic (untuned) path, converting every number, while fp32 matmuls use a fast hand-tuned BLAS. autocast's casts (and GradScaler for fp16) come on top.",
    },
    "lesson03.v.why_no_native": {
        "bn": "   কেন: এই {device}-তে {mode}-এর গাণিতিক একক নেই, তাই লাভের বদলে autocast-এর রূপান্তরের খরচই থাকে (fp16-এ GradScaler-এর inf পরীক্ষাও)।",
        "en": "   Why: this {device} has no {mode} arithmetic units, so instead of a gain only autocast's cast cost remains (and GradScaler's inf check for fp16).",
    },
    "lesson03.v.why_emulated_ok": {
        "bn": "   কেন: এই {device}-তে {mode}-এর আলাদা গাণিতিক একক নেই, তবু অর্ধেক বাইট সরাতে হয় — মেমরি-সীমিত অংশে তাতেই ক্ষতি পুষিয়ে যায়।",
        "en": "   Why: this {device} has no dedicated {mode} units, yet half the bytes move — in the memory-bound parts that makes up for the casts.",
    },
    "lesson03.v.mem_per_param": {"bn": "এই রানে এক ধাপের পরে মাপা বাইট/প্যারামিটার (ওজন + গ্রেডিয়েন্ট + Adam + মূল ওজন): {rows}।", "en": "Bytes per parameter measured after one step in this run (weights + gradients + Adam + master weights): {rows}."},
    "lesson03.v.mem_same_state": {"bn": "তিনটি বিন্যাসেই প্রায় সমান (পার্থক্য {spread:.2f} বাইট/প্যারামিটার, Adam-এর ধাপ-গণক): মিশ্র প্রিসিশন প্যারামিটারের অবস্থা কমায় না, শুধু ভাগ বদলায়।", "en": "All three layouts are about equal (they differ by {spread:.2f} bytes/parameter, Adam's step counters): mixed precision does not shrink the per-parameter state, it only redistributes it."},
    "lesson03.v.mem_state_differs": {"bn": "বিন্যাসগুলোর মধ্যে {spread:.2f} বাইট/প্যারামিটার পার্থক্য মাপা গেল — টেবিলের সাথে মিলিয়ে দেখো কোন অংশে।", "en": "The layouts differ by {spread:.2f} bytes/parameter here — compare with the table to see which part."},
    "lesson03.v.mem_act_bigger": {"bn": "{mode}: এই batch-এ অ্যাক্টিভেশন {act_mib:.2f} MiB, প্যারামিটারের অবস্থা {state_mib:.2f} MiB-এর {ratio:.1f} গুণ — এখানে মেমরির বড় অংশ অ্যাক্টিভেশন, তাই AMP-এর সঞ্চয় এখানেই।", "en": "{mode}: at this batch the activations take {act_mib:.2f} MiB, {ratio:.1f} times the parameter state of {state_mib:.2f} MiB — here activations are the larger part, so that is where AMP saves."},
    "lesson03.v.mem_state_bigger": {"bn": "{mode}: এই batch-এ অ্যাক্টিভেশন {act_mib:.2f} MiB, প্যারামিটারের অবস্থার ({state_mib:.2f} MiB) মাত্র {ratio:.2f} গুণ — এখানে বড় অংশ প্যারামিটারের অবস্থা, যা AMP কমায় না।", "en": "{mode}: at this batch the activations take {act_mib:.2f} MiB, only {ratio:.2f} times the parameter state ({state_mib:.2f} MiB) — here the state is the larger part, and AMP does not shrink it."},
    "lesson03.v.accum_equal": {"bn": "জমানো গ্রেডিয়েন্ট আর এক বড় batch-এর গ্রেডিয়েন্টের সর্বোচ্চ পার্থক্য {diff:.2e} (গ্রেডিয়েন্টের মাপ প্রায় {scale:.2e}): একই হিসাব, শুধু রাউন্ডিং আলাদা।", "en": "The accumulated gradients differ from one big batch's by at most {diff:.2e} (gradients are about {scale:.2e}): the same computation, only rounding differs."},
    "lesson03.v.accum_differs": {"bn": "জমানো গ্রেডিয়েন্ট এক বড় batch-এর থেকে {diff:.2e} পর্যন্ত আলাদা (গ্রেডিয়েন্টের মাপ প্রায় {scale:.2e}) — রাউন্ডিংয়ের চেয়ে বেশি; লস k দিয়ে ভাগ হয়েছে কিনা দেখো।", "en": "The accumulated gradients differ from one big batch's by up to {diff:.2e} (gradients are about {scale:.2e}) — more than rounding; check that the loss was divided by k."},
    "lesson03.v.accum_unscale_twice": {"bn": "একই ধাপে দ্বিতীয়বার unscale_ ডাকায় PyTorch থামিয়ে দিল: {error}", "en": "A second unscale_ in the same step was stopped by PyTorch: {error}"},
    "lesson03.v.accum_unscale_twice_silent": {"bn": "এই PyTorch-এ দ্বিতীয় unscale_ কোনো ত্রুটি দেয়নি — তবু তা ভুল: জমানো গ্রেডিয়েন্টের একাংশ দুবার ভাগ হয়।", "en": "This PyTorch raised no error on the second unscale_ — it is still wrong: part of the accumulated gradient gets divided twice."},
    "lesson03.v.multi_opt": {"bn": "একটি GradScaler, দুটি অপটিমাইজার, প্রথমটির গ্রেডিয়েন্টে inf: বাদ পড়ল {skipped}, ধাপ নিল {stepped}; স্কেল {before:g} → {after:g} (update একবারই)।", "en": "One GradScaler, two optimizers, an inf in the first one's gradients: skipped {skipped}, stepped {stepped}; scale {before:g} → {after:g} (update called once)."},
    "lesson03.v.fp32_broke": {"bn": "{mode} autocast-এ ({device}) হাতে-লেখা লস nan/inf হলো: এখানে exp() চলেছে {exp}-এ আর বড় লজিটে উপচে গেছে। autocast(enabled=False) অঞ্চলে .float() দিয়ে ত্রুটি নামল {fixed:.1e}-এ।", "en": "Under {mode} autocast ({device}) the hand-written loss became nan/inf: exp() ran in {exp} here and overflowed on the large logits. In an autocast(enabled=False) region on .float() the error fell to {fixed:.1e}."},
    "lesson03.v.fp32_less_accurate": {"bn": "{mode} autocast-এ ({device}) হাতে-লেখা লস সসীম, কিন্তু exp() চলেছে {exp}-এ: ত্রুটি {err:.1e}; fp32 অঞ্চলে {fixed:.1e}।", "en": "Under {mode} autocast ({device}) the hand-written loss stayed finite, but exp() ran in {exp}: error {err:.1e}; in an fp32 region {fixed:.1e}."},
    "lesson03.v.fp32_autocast_ok": {"bn": "{mode} autocast-এ ({device}) exp() চলেছে {exp}-এ: এই ডিভাইসের autocast নিজেই এই অংশ fp32-এ তুলেছে (ত্রুটি {err:.1e})। অন্য ডিভাইসে তালিকা আলাদা — তাই নিজের লেখা লস fp32 অঞ্চলে রাখো।", "en": "Under {mode} autocast ({device}) exp() ran in {exp}: this device's autocast lifted this part to fp32 itself (error {err:.1e}). Other devices have other lists — keep a hand-written loss in an fp32 region."},
    "lesson03.v.grads_many_low": {"bn": "এই রানে fp16-এ শূন্য হয় {zero:.3f}% গ্রেডিয়েন্ট, কিন্তু {low:.1f}% থাকে ক্ষুদ্রতম নর্মালের নিচে — হিস্টোগ্রামে কমলা রেখার বাঁয়ে, যেখানে fp16 সূক্ষ্মতা হারায়।", "en": "In this run fp16 turns {zero:.3f}% of the gradients into zero, but {low:.1f}% sit below the smallest normal — left of the orange line in the histogram, where fp16 loses resolution."},
    "lesson03.v.grads_few_low": {"bn": "এই রানে fp16-এ শূন্য হয় {zero:.3f}% গ্রেডিয়েন্ট, আর ক্ষুদ্রতম নর্মালের নিচে মাত্র {low:.1f}% — এই মডেলে fp16-এর সীমা এখনো বড় সমস্যা নয়।", "en": "In this run fp16 turns {zero:.3f}% of the gradients into zero, and only {low:.1f}% sit below the smallest normal — fp16's limits are not a big problem for this model yet."},
    "lesson03.v.scale_safe_range": {"bn": "এই রানের গ্রেডিয়েন্টে k = {lo} থেকে {hi} পর্যন্ত কিছুই শূন্য বা inf হয়নি।", "en": "For this run's gradients nothing became zero or inf from k = {lo} to {hi}."},
    "lesson03.v.scale_no_safe_range": {"bn": "এই রানের গ্রেডিয়েন্টে এমন কোনো k নেই যেখানে কিছুই শূন্য বা inf হয় না — কিছু হারাবেই, তাই GradScaler সবচেয়ে কম ক্ষতির স্কেল খোঁজে।", "en": "For this run's gradients no k keeps everything from becoming zero or inf — something is lost either way, so GradScaler looks for the least harmful scale."},
    "lesson03.v.accuracy_close": {
        "bn": "এই রানে ({steps} ধাপ) মোডগুলোর পরীক্ষা-সঠিকতার পার্থক্য মাত্র {spread:.1f} শতাংশ-বিন্দু: মিশ্র প্রিসিশনে মডেল fp32-এর মতোই শিখেছে।",
        "en": "In this run ({steps} steps) the modes' test accuracies differ by only {spread:.1f} percentage points: mixed precision learned as well as fp32.",
    },
    "lesson03.v.accuracy_apart": {
        "bn": "এই রানে ({steps} ধাপ) পরীক্ষা-সঠিকতা {spread:.1f} শতাংশ-বিন্দু আলাদা ({best} সবচেয়ে ভালো, {worst} সবচেয়ে খারাপ)। এত কম ধাপে শুরুর এলোমেলো ওঠানামা আর fp16-এর শুরুতে বাদ-পড়া ধাপই বড় — lab মোডে আরও ধাপ চালিয়ে দেখো।",
        "en": "In this run ({steps} steps) test accuracy differs by {spread:.1f} percentage points ({best} best, {worst} worst). With so few steps early noise and fp16's skipped first steps dominate — run more steps in lab mode.",
    },
}
