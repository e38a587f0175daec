"""Messages of lesson 05c (ZeRO/FSDP, tensor parallelism, GPipe vs 1F1B): panel, plots, verdicts, checks."""

MESSAGES = {
    # --- strategies
    "lesson05c.where_ran": {
        "bn": "কর্মীরা চলেছে {n}টি প্রসেসে: টেনসর {devices}-এ, ব্যাকএন্ড {backend}।",
        "en": "The workers ran in {n} processes: tensors on {devices}, backend {backend}.",
    },
    "lesson05c.s_ddp": {"bn": "DDP (সব কিছু পূর্ণ)", "en": "DDP (everything full)"},
    "lesson05c.s_zero1": {"bn": "ZeRO-1 (এই কোর্সের লেখা)", "en": "ZeRO-1 (written in this course)"},
    "lesson05c.s_zero1_torch": {"bn": "ZeRO-1 (PyTorch-এর ZeroRedundancyOptimizer)",
                                "en": "ZeRO-1 (PyTorch's ZeroRedundancyOptimizer)"},
    "lesson05c.s_zero2": {"bn": "ZeRO-2 (এই কোর্সের লেখা)", "en": "ZeRO-2 (written in this course)"},
    "lesson05c.s_zero3": {"bn": "ZeRO-3 (FSDP2 fully_shard)", "en": "ZeRO-3 (FSDP2 fully_shard)"},
    "lesson05c.s_tp": {"bn": "টেনসর প্যারালেল MLP (DTensor)", "en": "tensor-parallel MLP (DTensor)"},
    "lesson05c.s_gpipe": {"bn": "পাইপলাইন: GPipe", "en": "pipeline: GPipe"},
    "lesson05c.s_1f1b": {"bn": "পাইপলাইন: 1F1B", "en": "pipeline: 1F1B"},
    "lesson05c.short_zero1_torch": {"bn": "ZeRO-1\n(ZeroRedundancy)", "en": "ZeRO-1\n(ZeroRedundancy)"},
    "lesson05c.short_zero3": {"bn": "ZeRO-3\n(FSDP2)", "en": "ZeRO-3\n(FSDP2)"},
    # --- progress (a lab run launches once per item)
    "lesson05c.progress_zero": {"bn": "কৌশলগুলো একে একে চলছে", "en": "running the strategies one by one"},
    "lesson05c.progress_sweep": {"bn": "প্রস্থগুলো একে একে মাপা হচ্ছে", "en": "measuring the widths one by one"},
    "lesson05c.progress_schedules": {"bn": "সূচিগুলো একে একে চলছে", "en": "running the schedules one by one"},
    # --- panel
    "lesson05c.panel_title": {"bn": "ভাগ করে প্রশিক্ষণ: প্রতি র‍্যাঙ্কে মেমরি, যোগাযোগ আর সময়",
                              "en": "Sharded training: memory per process, communication and time"},
    "lesson05c.processes": {"bn": "প্রসেস", "en": "processes"},
    "lesson05c.unknown_strategy": {"bn": "অজানা কৌশল: {name}", "en": "unknown strategy: {name}"},
    "lesson05c.m_raised": {"bn": "1F1B-তে M ≥ K লাগে, তাই M = {m} নেওয়া হলো।",
                           "en": "1F1B needs M ≥ K, so M = {m} was used."},
    # --- plots and tables
    "lesson05c.part_params": {"bn": "প্যারামিটার (MB)", "en": "parameters (MB)"},
    "lesson05c.part_grads": {"bn": "গ্রেডিয়েন্ট (MB)", "en": "gradients (MB)"},
    "lesson05c.part_optim": {"bn": "অপটিমাইজার অবস্থা (MB)", "en": "optimizer state (MB)"},
    "lesson05c.formula": {"bn": "সূত্র", "en": "formula"},
    "lesson05c.mb_per_rank": {"bn": "প্রতি র‍্যাঙ্কে MB", "en": "MB per rank"},
    "lesson05c.memory_title": {"bn": "প্রতি র‍্যাঙ্কে মেমরি (মাপা, {w}টি প্রসেস)",
                               "en": "memory per rank (measured, {w} processes)"},
    "lesson05c.payload_mb": {"bn": "এক ধাপে যোগাযোগ (payload), MB", "en": "communication per step (payload), MB"},
    # the collectives by kind (CommCounter's keys), as the glossary names them
    "lesson05c.kind_all_reduce": {"bn": "অল-রিডিউস", "en": "all-reduce"},
    "lesson05c.kind_all_gather": {"bn": "অল-গ্যাদার", "en": "all-gather"},
    "lesson05c.kind_reduce_scatter": {"bn": "রিডিউস-স্ক্যাটার", "en": "reduce-scatter"},
    "lesson05c.kind_broadcast": {"bn": "ব্রডকাস্ট (broadcast)", "en": "broadcast"},
    "lesson05c.comm_title": {"bn": "কোন সমষ্টিগত কাজে কত বাইট", "en": "bytes by collective"},
    "lesson05c.tp_compute": {"bn": "গণনা, নিজের ভাগ (ms)", "en": "compute, own slice (ms)"},
    "lesson05c.tp_single": {"bn": "এক প্রসেসে পুরো MLP (ms)", "en": "whole MLP in one process (ms)"},
    "lesson05c.tp_time_title": {"bn": "টেনসর প্যারালেল: গণনা বনাম অল-রিডিউস", "en": "tensor parallel: compute vs all-reduce"},
    "lesson05c.comm_share": {"bn": "যোগাযোগের ভাগ (%)", "en": "communication share (%)"},
    "lesson05c.tp_share_title": {"bn": "প্রস্থ বাড়লে যোগাযোগের ভাগ", "en": "communication share as width grows"},
    "lesson05c.gantt_title": {
        "bn": "{name}, M = {m}: অলস {idle:.0%} (সূত্র {formula:.0%}), একসাথে জীবিত মাইক্রো-ব্যাচ: {alive}",
        "en": "{name}, M = {m}: idle {idle:.0%} (formula {formula:.0%}), micro-batches alive at once: {alive}"},
    "lesson05c.col_step_ms": {"bn": "ধাপ (ms)", "en": "step (ms)"},
    "lesson05c.col_error": {"bn": "এক প্রসেসের সাথে সর্বোচ্চ পার্থক্য", "en": "max difference from one process"},
    "lesson05c.col_up_shape": {"bn": "up-এর ভাগ", "en": "up shard"},
    "lesson05c.col_down_shape": {"bn": "down-এর ভাগ", "en": "down shard"},
    "lesson05c.col_fwd_comm": {"bn": "ফরওয়ার্ডে যোগাযোগ", "en": "forward collectives"},
    "lesson05c.col_bwd_comm": {"bn": "ব্যাকওয়ার্ডে যোগাযোগ", "en": "backward collectives"},
    "lesson05c.col_stage": {"bn": "ধাপ (stage)", "en": "stage"},
    "lesson05c.col_alive": {"bn": "একসাথে জীবিত মাইক্রো-ব্যাচ (মাপা)", "en": "micro-batches alive (measured)"},
    "lesson05c.col_alive_rule": {"bn": "নিয়ম অনুযায়ী", "en": "by the rule"},
    "lesson05c.col_act_kb": {"bn": "অ্যাক্টিভেশনের সর্বোচ্চ (KB)", "en": "activation peak (KB)"},
    # --- verdicts
    "lesson05c.v_zero_bytes": {
        "bn": "{name}: প্রতি র‍্যাঙ্কে মাপা {measured_mb:.3f} MB, সূত্র বলে {formula_mb:.3f} MB (পার্থক্য {diff:.1%})।",
        "en": "{name}: measured {measured_mb:.3f} MB in each process, the formula says {formula_mb:.3f} MB (difference {diff:.1%})."},
    "lesson05c.v_zero_comm": {
        "bn": "যোগাযোগের দাম: এক ধাপে DDP পাঠায় {ddp_mb:.2f} MB, ZeRO-3 (FSDP2) {z3_mb:.2f} MB — {ratio:.2f} গুণ "
              "(প্রসেসগুলোর ভেতরে গোনা বাইট), কারণ ব্যাকওয়ার্ডের জন্য ওজন আবার জড়ো (all-gather) করতে হয়।",
        "en": "The price in communication: per step DDP moves {ddp_mb:.2f} MB, ZeRO-3 (FSDP2) {z3_mb:.2f} MB — "
              "{ratio:.2f}× (bytes counted inside the processes), because the weights are gathered again for backward."},
    # the step times apart from the bytes: a busy machine makes these noisy, never the counted bytes above
    "lesson05c.v_zero_step": {
        "bn": "এই মেশিনে এক ধাপ: DDP {ddp_ms:.1f} ms, ZeRO-3 {z3_ms:.1f} ms।",
        "en": "One step on this machine: DDP {ddp_ms:.1f} ms, ZeRO-3 {z3_ms:.1f} ms."},
    "lesson05c.v_tp_ok": {
        "bn": "টেনসর প্যারালেল MLP-এর আউটপুট এক প্রসেসের মডেলের সাথে মেলে (সর্বোচ্চ পার্থক্য {error:.1e}); "
              "ফরওয়ার্ডে মোট {forward}টি যোগাযোগ, ব্যাকওয়ার্ডে {backward}টি।",
        "en": "The tensor-parallel MLP's output equals the single-process model's (max difference {error:.1e}); "
              "{forward} collective(s) in forward, {backward} in backward."},
    "lesson05c.v_tp_bad": {
        "bn": "সাবধান: টেনসর প্যারালেল আউটপুট এক প্রসেসের থেকে {error:.1e} পর্যন্ত আলাদা — কিছু ভুল হয়েছে।",
        "en": "Careful: the tensor-parallel output differs from one process by up to {error:.1e} — something is wrong."},
    "lesson05c.v_sweep_falls": {
        "bn": "প্রস্থ {w0} থেকে {w1}-এ যোগাযোগের ভাগ {s0:.0%} থেকে {s1:.0%}-এ নামল: গণনা বাড়ে প্রস্থের বর্গের "
              "সাথে, অল-রিডিউস শুধু প্রস্থের সাথে।",
        "en": "From width {w0} to {w1} the communication share fell from {s0:.0%} to {s1:.0%}: compute grows with "
              "the square of the width, the all-reduce only with the width."},
    "lesson05c.v_sweep_flat": {
        "bn": "এই রানে প্রস্থ {w0} থেকে {w1}-এ যোগাযোগের ভাগ {s0:.0%} থেকে {s1:.0%} হলো — কমেনি। মেশিন ব্যস্ত থাকলে "
              "বা প্রস্থ খুব ছোট হলে এমন হয়; আবার চালিয়ে দেখো।",
        "en": "In this run the communication share went from {s0:.0%} (width {w0}) to {s1:.0%} (width {w1}) — it did not "
              "fall. A busy machine or very small widths do this; run it again."},
    "lesson05c.v_sweep_falls_compute": {
        "bn": "প্রস্থ {w0} থেকে {w1}-এ যোগাযোগের ভাগ {s0:.0%} থেকে {s1:.0%}-এ নামল: অল-রিডিউস প্রায় একই থেকেছে, "
              "আর গণনা বেড়েছে প্রস্থের বর্গের সাথে।",
        "en": "From width {w0} to {w1} the communication share fell from {s0:.0%} to {s1:.0%}: the all-reduce stayed "
              "about the same while compute grew with the square of the width."},
    "lesson05c.v_sweep_ar_grows": {
        "bn": "অল-রিডিউস প্রস্থের সাথে বেড়েছে: প্রস্থ {w0} থেকে {w1}-এ {times} ms ({growth:.1f} গুণ), আর বাইট "
              "বেড়েছে {bytes:.0f} গুণ। এই আকারে বাইটই সময় নেয়।",
        "en": "The all-reduce grew with the width: {times} ms from width {w0} to {w1} ({growth:.1f}x), while its "
              "bytes grew {bytes:.0f}x. At these sizes the bytes take the time."},
    "lesson05c.v_sweep_ar_flat": {
        "bn": "অল-রিডিউস প্রায় সমান থেকেছে: প্রস্থ {w0} থেকে {w1}-এ {times} ms, যদিও বাইট বেড়েছে {bytes:.0f} গুণ। "
              "এত ছোট বার্তায় সময় যায় প্রতিটি অল-রিডিউসের স্থির খরচে (লেটেন্সি), বাইটে নয় — তাই এখানে "
              "যোগাযোগ প্রস্থের সাথে বাড়েনি।",
        "en": "The all-reduce stayed about flat: {times} ms from width {w0} to {w1}, although its bytes grew "
              "{bytes:.0f}x. Messages this small cost each all-reduce's fixed start-up time (latency), not their "
              "bytes, so here communication did not grow with the width."},
    "lesson05c.v_sweep_ar_irregular": {
        "bn": "⚠️ অল-রিডিউসের সময় ({times} ms, প্রস্থ {w0} থেকে {w1}) বাইটের সাথে কোনো নিয়মে চলেনি — ওঠানামা করেছে। "
              "এটা মাপের গোলমাল (noise), তাই এখান থেকে কোনো প্রবণতা বা কারণ বলা যায় না। মেশিন ফাঁকা রেখে আবার চালাও।",
        "en": "⚠️ The all-reduce times ({times} ms, width {w0} to {w1}) follow no rule with the bytes — they jump up "
              "and down. That is measurement noise, so no trend or cause can be read from them. Run again on a quiet "
              "machine."},
    "lesson05c.v_sweep_impossible": {
        "bn": "⚠️ প্রস্থ {w}-এ পুরো TP ফরওয়ার্ড ({tp:.1f} ms) নিজের ভাগের শুধু গণনার ({compute:.1f} ms) চেয়েও কম "
              "সময় নিয়েছে — তা হতে পারে না, কারণ ফরওয়ার্ডে সেই গণনাও আছে। দুটি মাপ একে অপরের বিরোধী: এটা মাপের "
              "গোলমাল, ব্যাখ্যা নয়। আবার চালাও।",
        "en": "⚠️ At width {w} the whole TP forward ({tp:.1f} ms) took less than its own slice's compute alone "
              "({compute:.1f} ms) — impossible, since the forward contains that compute. The two timings contradict "
              "each other: this is measurement noise, not something to explain. Run again."},
    "lesson05c.v_sched_alive": {
        "bn": "{name}, M = {m}: প্রতিটি ধাপে একসাথে জীবিত মাইক্রো-ব্যাচ {alive}, নিয়মও বলে {rule}; "
              "অ্যাক্টিভেশনের সর্বোচ্চ {kb} KB।",
        "en": "{name}, M = {m}: micro-batches alive at once per stage {alive}, the rule says {rule}; "
              "activation peak {kb} KB."},
    "lesson05c.v_sched_alive_off": {
        "bn": "{name}, M = {m}: মাপা জীবিত মাইক্রো-ব্যাচ {alive}, নিয়ম বলে {rule} — মেলেনি; অ্যাক্টিভেশন {kb} KB।",
        "en": "{name}, M = {m}: measured micro-batches alive {alive}, the rule says {rule} — they differ; activations {kb} KB."},
    "lesson05c.v_sched_idle": {
        "bn": "M = {m}: মাপা অলস ভাগ GPipe {g:.0%}, 1F1B {o:.0%}; দুটির সূত্রই {f:.0%}। 1F1B বাবল কমায় না, "
              "মেমরি কমায় ({k}টি ধাপ)।",
        "en": "M = {m}: measured idle share GPipe {g:.0%}, 1F1B {o:.0%}; the formula gives {f:.0%} for both. 1F1B does "
              "not shrink the bubble, it shrinks memory ({k} stages)."},
    "lesson05c.v_sched_idle_differ": {
        "bn": "M = {m}: মাপা অলস ভাগ GPipe {g:.0%}, 1F1B {o:.0%}; দুটির সূত্রই {f:.0%} — এখানে {lower} কম অলস ছিল। সূত্রের বাবল দুটিতে একই; "
              "মাপের এই ফারাক সূত্রের বাইরের খরচ, যা এই রান আলাদা করে মাপেনি ({k}টি ধাপ)। "
              "1F1B নিশ্চিতভাবে যা কমায় তা মেমরি (উপরের জীবিত মাইক্রো-ব্যাচ)।",
        "en": "M = {m}: measured idle share GPipe {g:.0%}, 1F1B {o:.0%}; the formula gives {f:.0%} for both — here {lower} "
              "idled less. The formula's bubble is the same for both; this difference is a cost outside the formula, "
              "which this run did not measure apart ({k} stages). What 1F1B surely shrinks is memory (the "
              "micro-batches alive, above)."},
    "lesson05c.v_cost_close": {
        "bn": "খরচের মডেল: মাপা ধাপ পূর্বাভাসের {low:.2f} থেকে {high:.2f} গুণ — দুই গুণের মধ্যে। α আর β দিয়ে যোগাযোগের "
              "খরচ মোটামুটি আগেই বলা যায়।",
        "en": "Cost model: the measured steps are {low:.2f} to {high:.2f} times the prediction — within a factor of two. "
              "α and β predict the communication roughly."},
    "lesson05c.v_cost_far": {
        "bn": "খরচের মডেল: মাপা ধাপ পূর্বাভাসের {low:.2f} থেকে {high:.2f} গুণ; সবচেয়ে দূরে {name} ({ratio:.2f} গুণ)। "
              "এই মেশিনে ধাপটা গণনা আর যোগাযোগের যোগফলের চেয়ে বেশি; বাকিটা কোথায় গেল, এই মাপ তা বলে না।",
        "en": "Cost model: the measured steps are {low:.2f} to {high:.2f} times the prediction; furthest is {name} "
              "({ratio:.2f}×). On this machine a step takes more than compute plus communication; where the rest went, "
              "this measurement does not say."},
    "lesson05c.v_cost_missing": {
        "bn": "খরচের মডেল (fastrain_lib.distributed.cost_model) এখানে নেই, তাই পূর্বাভাসের তুলনা হলো না।",
        "en": "The cost model (fastrain_lib.distributed.cost_model) is not available here, so there is no comparison."},
    "lesson05c.v_sched_idle_overhead": {
        "bn": "M = {m}: মাপা অলস ভাগ GPipe {g:.0%}, 1F1B {o:.0%} — সূত্রের {f:.0%}-এর চেয়ে অনেক বেশি ({k}টি ধাপ): "
              "এই রানে সূত্রের বাইরের খরচই (send/recv, সূচির নিজের কাজ) বড়, যা সূত্র ধরে না। "
              "1F1B-র লাভ বাবলে নয়, মেমরিতে (উপরের জীবিত মাইক্রো-ব্যাচ)।",
        "en": "M = {m}: measured idle share GPipe {g:.0%}, 1F1B {o:.0%} — far above the formula's {f:.0%} ({k} stages): "
              "in this run the costs outside the formula (send/recv, the schedule's own work) are large, and the "
              "formula leaves them out. 1F1B's gain is memory, not the bubble (the live micro-batches above)."},
    # --- checks: ZeRO memory
    "lesson05c.check_not_a_number": {"bn": "একটি সংখ্যা (বাইট) ফেরত দাও, {got} নয়।",
                                     "en": "Return one number (bytes), not {got}."},
    "lesson05c.check_zero_ok": {"bn": "ঠিক! সব স্টেজ আর সব প্রসেস-সংখ্যায় বাইট মিলেছে।",
                                "en": "Right! The bytes match for every stage and process count."},
    "lesson05c.check_zero_fp32": {
        "bn": "Ψ = {n}, স্টেজ {stage}, N = {w}: তুমি fp32-এর হিসাব করেছ (4 + 4 + 8)। এখানে মিশ্র প্রিসিশন Adam: "
              "ওজন 2Ψ, গ্রেডিয়েন্ট 2Ψ, অপটিমাইজার 12Ψ (fp32 মূল ওজন, m, v)।",
        "en": "Ψ = {n}, stage {stage}, N = {w}: you used fp32 (4 + 4 + 8). This is mixed-precision Adam: weights 2Ψ, "
              "gradients 2Ψ, optimizer 12Ψ (fp32 master weights, m, v)."},
    "lesson05c.check_zero_no_master": {
        "bn": "Ψ = {n}, স্টেজ {stage}: অপটিমাইজারের ভাগে 8Ψ নিয়েছ — fp32 মূল ওজনের 4Ψ বাদ পড়েছে (মোট 12Ψ)।",
        "en": "Ψ = {n}, stage {stage}: you counted 8Ψ for the optimizer — the fp32 master weights' 4Ψ are missing (12Ψ in all)."},
    "lesson05c.check_zero_no_shard": {
        "bn": "স্টেজ {stage}, N = {w}: তুমি সব সময় 16Ψ দিচ্ছ। স্টেজ 1 থেকে অপটিমাইজার অবস্থা N ভাগে ভাগ হয়।",
        "en": "Stage {stage}, N = {w}: you always give 16Ψ. From stage 1 on the optimizer state is split N ways."},
    "lesson05c.check_zero_all_sharded": {
        "bn": "স্টেজ {stage}: তুমি সব কিছু N দিয়ে ভাগ করেছ। স্টেজ 1 শুধু অপটিমাইজার অবস্থা, স্টেজ 2 তার সাথে "
              "গ্রেডিয়েন্ট, স্টেজ 3 তার সাথে ওজনও ভাগ করে।",
        "en": "Stage {stage}: you divided everything by N. Stage 1 splits only the optimizer state, stage 2 also the "
              "gradients, stage 3 also the weights."},
    "lesson05c.check_zero_stage_shift": {
        "bn": "স্টেজ {stage}: তোমার উত্তর পাশের স্টেজের সাথে মেলে। আবার দেখো: স্টেজ 1 = অপটিমাইজার/N, "
              "স্টেজ 2 = + গ্রেডিয়েন্ট/N, স্টেজ 3 = + ওজন/N।",
        "en": "Stage {stage}: your answer matches the neighbouring stage. Recheck: stage 1 = optimizer/N, stage 2 = "
              "+ gradients/N, stage 3 = + weights/N."},
    "lesson05c.check_zero_units": {
        "bn": "সংখ্যাটা ঠিক, কিন্তু একক ভুল: বাইটে ফেরত দাও (GB বা GiB-তে নয়)। চাওয়া ছিল {want:.6g}।",
        "en": "The number is right but the unit is not: return bytes (not GB or GiB). Expected {want:.6g}."},
    "lesson05c.check_zero_per_param": {
        "bn": "তুমি প্রতি প্যারামিটারে বাইট দিয়েছ; Ψ দিয়ে গুণ করে মোট বাইট দাও।",
        "en": "You returned bytes per parameter; multiply by Ψ for the total."},
    "lesson05c.check_zero_wrong": {
        "bn": "Ψ = {n}, স্টেজ {stage}, N = {w}: পেয়েছি {got:.6g}, হওয়া উচিত {want:.6g} বাইট।",
        "en": "Ψ = {n}, stage {stage}, N = {w}: got {got:.6g}, expected {want:.6g} bytes."},
    # --- checks: the column/row MLP
    "lesson05c.check_zero_rounded": {
        "bn": "Ψ = {n}, স্টেজ {stage}, N = {w}: তুমি {got} দিয়েছ, হওয়া উচিত {want}। ভাগফল পূর্ণসংখ্যায় গোল করা হয়েছে "
              "(// বা ceil) — এখানে সঠিক ভাগ (/) চাই, Ψ যখন N দিয়ে বিভাজ্য নয় তখনও।",
        "en": "Ψ = {n}, stage {stage}, N = {w}: you gave {got}, it should be {want}. The division was rounded to a whole "
              "number (// or ceil) — use exact division (/), also when Ψ does not divide by N."},
    "lesson05c.check_tp_full_matmul": {
        "bn": "আউটপুট ঠিক, কিন্তু র‍্যাঙ্ক {rank} একটি পুরো, ভাগ-না-করা ম্যাট্রিক্স গুণ করেছে ({op}, আকার {shapes}): তাতে "
              "সব {hidden}টি লুকানো একক আছে। টেনসর প্যারালেলিজমে প্রতিটি র‍্যাঙ্ক শুধু নিজের খণ্ডের {block}টি একক গুণ করে — "
              "আগে w1-এর সারি আর w2-এর কলাম কেটে নাও, তারপর গুণ করো (পুরোটা গুণ করে পরে কাটা নয়)।",
        "en": "The output is right, but rank {rank} did a full, unsplit matrix multiply ({op}, shapes {shapes}) spanning "
              "all {hidden} hidden units. In tensor parallelism each rank multiplies only its own block of {block} "
              "units — slice w1's rows and w2's columns first, then multiply (not multiply everything and slice after)."},
    "lesson05c.check_tp_ok": {
        "bn": "ঠিক! 2টি, 3টি আর 1টি আসল প্রসেসে আউটপুট এক প্রসেসের MLP-এর সমান, একটিমাত্র অল-রিডিউস, আর প্রতিটি "
              "র‍্যাঙ্ক শুধু নিজের ভাগের ওজন ছুঁয়েছে।",
        "en": "Right! In 2, 3 and 1 real processes the output equals the single-process MLP, with one all-reduce, and "
              "each rank touched only its own block of the weights."},
    "lesson05c.check_tp_not_tensor": {"bn": "একটি টেনসর ফেরত দাও (পেয়েছি {got})।", "en": "Return a tensor (got {got})."},
    "lesson05c.check_tp_shape": {"bn": "আউটপুটের আকার {got}, হওয়া উচিত {want} (batch × d)।",
                                 "en": "The output's shape is {got}, it should be {want} (batch × d)."},
    "lesson05c.check_tp_no_split": {
        "bn": "আউটপুট ঠিক, কিন্তু কোনো যোগাযোগ নেই: প্রতিটি র‍্যাঙ্ক পুরো MLP নিজেই হিসাব করেছে। নিজের ভাগ নাও — "
              "w1-এর সারি আর w2-এর কলামের r-তম খণ্ড — তারপর একটি dist.all_reduce।",
        "en": "The output is right but there is no communication: each rank computed the whole MLP. Take your block — "
              "the r-th piece of w1's rows and of w2's columns — then one dist.all_reduce."},
    "lesson05c.check_tp_two": {
        "bn": "আউটপুট ঠিক, কিন্তু যোগাযোগ হলো একাধিকবার ({calls})। কলাম-তারপর-রো ভাগে GELU নিজের ভাগেই চলে, "
              "তাই ফরওয়ার্ডে একটি অল-রিডিউসই যথেষ্ট।",
        "en": "The output is right, but there were several collectives ({calls}). With the column-then-row cut GELU "
              "runs on each rank's own slice, so one all-reduce in forward is enough."},
    "lesson05c.check_tp_foreign": {
        "bn": "র‍্যাঙ্ক {rank} নিজের খণ্ডের বাইরের ওজন ব্যবহার করেছে (অন্য খণ্ডগুলো NaN করে দিলে আউটপুট বদলে যায়)। "
              "র‍্যাঙ্ক r নেবে লুকানো এককের r-তম সমান, পাশাপাশি খণ্ড (torch.chunk যেভাবে কাটে)।",
        "en": "Rank {rank} used weights outside its block (with the other blocks set to NaN the output changes). "
              "Rank r takes the r-th equal, contiguous block of the hidden units (as torch.chunk cuts them)."},
    "lesson05c.check_tp_no_allreduce": {
        "bn": "প্রতিটি র‍্যাঙ্কের আউটপুট শুধু তার নিজের আংশিক যোগফল। down-এর পরে dist.all_reduce(y) দিয়ে "
              "সব র‍্যাঙ্কের ভাগ যোগ করো।",
        "en": "Each rank's output is only its own partial sum. After down, add all ranks' parts with dist.all_reduce(y)."},
    "lesson05c.check_tp_bias": {
        "bn": "down-এর bias {w} বার যোগ হয়েছে: প্রতিটি র‍্যাঙ্ক অল-রিডিউসের আগে b2 যোগ করেছে। b2 যোগ করো "
              "অল-রিডিউসের পরে, একবার।",
        "en": "down's bias was added {w} times: every rank added b2 before the all-reduce. Add b2 after the all-reduce, once."},
    "lesson05c.check_tp_averaged": {
        "bn": "আউটপুট {w} দিয়ে ভাগ হয়ে গেছে। এখানে গড় নয়, যোগফল চাই: প্রতিটি র‍্যাঙ্কের অংশ পুরো y-এর একটি "
              "আংশিক যোগফল।",
        "en": "The output was divided by {w}. Here we want the sum, not the mean: each rank's part is a partial sum of y."},
    "lesson05c.check_tp_wrong": {
        "bn": "{w}টি প্রসেসে আউটপুট এক প্রসেসের MLP থেকে {error:.3g} পর্যন্ত আলাদা। দেখো: up-এর সারি (w1[খণ্ড]) আর "
              "down-এর কলাম (w2[:, খণ্ড]) একই খণ্ড কি না, আর খণ্ডটা rank দিয়ে ঠিক হচ্ছে কি না।",
        "en": "With {w} processes the output differs from the single-process MLP by up to {error:.3g}. Check that up's "
              "rows (w1[block]) and down's columns (w2[:, block]) are the same block, chosen by rank."},
    "lesson05c.check_tp_no_source": {
        "bn": "ফাংশনের সোর্স পাওয়া গেল না; এটি একটি নোটবুক সেলে def দিয়ে লেখো।",
        "en": "Could not read the function's source; write it with def in a notebook cell."},
    "lesson05c.check_tp_timeout": {
        "bn": "{w}টি প্রসেস {seconds} সেকেন্ডেও শেষ হয়নি: সম্ভবত কোনো র‍্যাঙ্ক অল-রিডিউস ডাকেনি, আর অন্যরা তার "
              "অপেক্ষায়। সব র‍্যাঙ্ক একই যোগাযোগ একই ক্রমে ডাকবে।",
        "en": "{w} processes did not finish in {seconds} s: probably one rank skipped the all-reduce and the others "
              "wait for it. Every rank must call the same collectives in the same order."},
    "lesson05c.check_tp_mismatch": {
        "bn": "{w}টি প্রসেসে একটি র‍্যাঙ্ক এমন যোগাযোগের অপেক্ষায় আটকে ছিল যা অন্যরা কখনও ডাকেনি (অন্য র‍্যাঙ্ক আগেই "
              "শেষ করে চলে গেছে)। সব র‍্যাঙ্ক একই যোগাযোগ একই ক্রমে ডাকবে — `if rank == 0:`-এর ভেতরে all_reduce নয়।",
        "en": "With {w} processes one rank waited in a collective the others never called (they had already finished). "
              "Every rank must call the same collectives in the same order — no all_reduce inside `if rank == 0:`."},
    "lesson05c.check_tp_worker": {"bn": "একটি র‍্যাঙ্ক ভেঙে পড়েছে:\n{error}", "en": "A rank failed:\n{error}"},
}
