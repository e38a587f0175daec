"""Messages of lesson 06 (synchronous vs asynchronous SGD): panel and exercise checks."""

MESSAGES = {
    # panel
    "lesson06.panel_title": {
        "bn": "প্যারামিটার সার্ভার সিমুলেটর: কর্মী, ধীর কর্মী, মোড, পুরোনোত্বের সীমা, শেখার হার",
        "en": "Parameter-server simulator: workers, stragglers, mode, staleness bound, learning rate",
    },
    "lesson06.workers": {"bn": "কর্মী (worker)", "en": "workers"},
    "lesson06.straggler_prob": {"bn": "ধীর হওয়ার সম্ভাবনা", "en": "straggler probability"},
    "lesson06.straggler_delay": {"bn": "দেরি (ধাপের গুণ)", "en": "delay (× step)"},
    "lesson06.all_modes": {"bn": "সব মোড পাশাপাশি", "en": "all modes side by side"},
    "lesson06.bound": {"bn": "পুরোনোত্বের সীমা s (SSP)", "en": "staleness bound s (SSP)"},
    "lesson06.lr": {"bn": "শেখার হার (learning rate)", "en": "learning rate"},
    "lesson06.loss_time": {"bn": "লস বনাম সিমুলেটেড সময়", "en": "loss vs simulated time"},
    "lesson06.loss_grads": {"bn": "লস বনাম প্রয়োগ করা গ্রেডিয়েন্ট", "en": "loss vs gradients applied"},
    "lesson06.problem_digits": {"bn": "বাংলা অঙ্কের", "en": "the Bengali digits"},
    "lesson06.problem_blobs": {"bn": "কৃত্রিম বিন্দু-মেঘের (blobs)", "en": "synthetic blobs"},
    "lesson06.note": {
        "bn": "সময় সিমুলেটেড (একক: একটি সাধারণ ধাপ), কিন্তু মডেল, ডেটা ও গ্রেডিয়েন্ট আসল: {problem} ডেটায় {gradients}টি গ্রেডিয়েন্ট, batch {batch}। প্রতিটি মোডে একই সংখ্যক গ্রেডিয়েন্ট প্রয়োগ হয়েছে। ✗ = বিচ্যুত (diverged)।",
        "en": "Time is simulated (unit: one normal step), but the model, data and gradients are real: {gradients} gradients on {problem}, batch {batch}. Every mode applied the same number of gradients. ✗ = diverged.",
    },
    # verdicts of the notebook (fastrain_lib.lessons.l06_sync_vs_async_sgd.panel)
    "lesson06.ps_not_run_short": {"bn": "প্যারামিটার সার্ভার চলেনি:\nএই torch-এ RPC নেই", "en": "parameter server not run:\nno RPC in this torch"},
    "lesson06.v_ps_not_run": {
        "bn": "আসল প্যারামিটার সার্ভার এই মেশিনে চলেনি (কারণ ওপরের সেলে), তাই তার থ্রুপুট বা পুরোনোত্ব নিয়ে এখানে কিছু বলার নেই; সিমুলেটরের রায় ওপরে আছে।",
        "en": "The real parameter server did not run on this machine (the reason is in the cell above), so there is nothing to say here about its throughput or staleness; the simulator's verdicts are above.",
    },
    "lesson06.v_modes_time": {
        "bn": "একই সংখ্যক গ্রেডিয়েন্ট প্রয়োগে সিমুলেটেড সময়: সিঙ্ক্রোনাস {sync:.0f}, ব্যাকআপসহ {backup:.0f}, SSP {ssp:.0f}, "
              "অ্যাসিঙ্ক্রোনাস {asyn:.0f} একক — অ্যাসিঙ্ক্রোনাস সিঙ্ক্রোনাসের চেয়ে {speedup:.1f}× কম সময় নিয়েছে। "
              "শেষ লস: সিঙ্ক্রোনাস {loss_sync:.3f}, অ্যাসিঙ্ক্রোনাস {loss_async:.3f}।",
        "en": "Simulated time to apply the same number of gradients: sync {sync:.0f}, sync + backup {backup:.0f}, SSP {ssp:.0f}, "
              "async {asyn:.0f} units — async took {speedup:.1f}× less time than sync. "
              "Final loss: sync {loss_sync:.3f}, async {loss_async:.3f}.",
    },
    "lesson06.v_ssp_near_sync": {
        "bn": "SSP-র (s = {s}) দাম এখানে মোটেও অল্প নয়: {ssp:.0f} একক, সিঙ্ক্রোনাসের ({sync:.0f}) কাছাকাছি, অ্যাসিঙ্ক্রোনাস {asyn:.0f}। "
              "একজন কর্মী অনেক ধীর হলে দ্রুতরা s ধাপ এগিয়েই প্রায় প্রতিবার তার জন্য থামে। বদলে পুরোনোত্ব সীমিত: সর্বোচ্চ {ssp_max} "
              "(অ্যাসিঙ্ক্রোনাসে {async_max})।",
        "en": "SSP (s = {s}) was not cheap here: {ssp:.0f} units, close to sync ({sync:.0f}); async took {asyn:.0f}. "
              "With one much slower worker, the fast ones reach the bound s and wait for it almost every time. In return "
              "staleness is bounded: at most {ssp_max} (async: {async_max}).",
    },
    "lesson06.v_ssp_between": {
        "bn": "SSP (s = {s}) নিয়েছে {ssp:.0f} একক — অ্যাসিঙ্ক্রোনাস ({asyn:.0f}) আর সিঙ্ক্রোনাসের ({sync:.0f}) মাঝামাঝি: "
              "অপেক্ষার দাম সিঙ্ক্রোনাস থেকে অ্যাসিঙ্ক্রোনাসের পথের {share:.0%}। সর্বোচ্চ পুরোনোত্ব {ssp_max} (অ্যাসিঙ্ক্রোনাসে {async_max})।",
        "en": "SSP (s = {s}) took {ssp:.0f} units — between async ({asyn:.0f}) and sync ({sync:.0f}): its waiting cost "
              "{share:.0%} of the way from async to sync. Max staleness {ssp_max} (async: {async_max}).",
    },
    "lesson06.v_ssp_near_async": {
        "bn": "SSP (s = {s}) নিয়েছে {ssp:.0f} একক, অ্যাসিঙ্ক্রোনাসের ({asyn:.0f}) কাছাকাছি (সিঙ্ক্রোনাস {sync:.0f}): এখানে অপেক্ষা অল্প, "
              "আর পুরোনোত্ব সর্বোচ্চ {ssp_max} (অ্যাসিঙ্ক্রোনাসে {async_max})।",
        "en": "SSP (s = {s}) took {ssp:.0f} units, close to async ({asyn:.0f}; sync {sync:.0f}): little waiting here, "
              "and staleness at most {ssp_max} (async: {async_max}).",
    },
    "lesson06.v_lr_row": {
        "bn": "lr = {lr}: 1 জন কর্মী — শেষ লস {one}; {w} জন অ্যাসিঙ্ক্রোনাস কর্মী — {many}।",
        "en": "lr = {lr}: 1 worker — final loss {one}; {w} asynchronous workers — {many}.",
    },
    "lesson06.v_lr_diverged": {
        "bn": "শেখার হার {lrs}-এ পুরোনো গ্রেডিয়েন্টের কর্মীরা বিচ্যুত হয়েছে, 1 জন কর্মী একই হারে হয়নি: পুরোনোত্বই তফাত।",
        "en": "At learning rate {lrs} the workers with stale gradients diverged, while 1 worker at the same rate did not: staleness made the difference.",
    },
    "lesson06.v_lr_worse": {
        "bn": "এই রানে কেউ বিচ্যুত হয়নি, কিন্তু প্রতিটি শেখার হারে পুরোনো গ্রেডিয়েন্টের কর্মীদের শেষ লস বেশি।",
        "en": "No run diverged here, but at every learning rate the workers with stale gradients ended with a higher loss.",
    },
    "lesson06.v_lr_mixed": {
        "bn": "এই রানে {total}টি শেখার হারের {worse}টিতে পুরোনো গ্রেডিয়েন্টের কর্মীদের শেষ লস বেশি; বাকিগুলোতে নয় — ছোট হারে পুরোনোত্ব কম ক্ষতি করে।",
        "en": "Here the workers with stale gradients ended worse at {worse} of {total} learning rates, not at the others — at small rates staleness hurts little.",
    },
    "lesson06.v_backup": {
        "bn": "প্রতি আপডেটের গড় সময়: b = 0-তে {t0:.2f}, b = 1-এ {t1:.2f} ({cut:.0%} কম), b = {bmax}-এ {tmax:.2f} একক; "
              "দাম বাতিল গ্রেডিয়েন্ট: b = 1-এ {d1}টি, b = {bmax}-এ {dmax}টি।",
        "en": "Mean time per update: {t0:.2f} with b = 0, {t1:.2f} with b = 1 ({cut:.0%} less), {tmax:.2f} units with b = {bmax}; "
              "the price is dropped gradients: {d1} with b = 1, {dmax} with b = {bmax}.",
    },
    "lesson06.v_backup_nohelp": {
        "bn": "এই রানে ব্যাকআপ কর্মী সময় কমায়নি: b = 0-তে {t0:.2f}, b = 1-এ {t1:.2f} একক প্রতি আপডেট — দেরি কম হলে বাতিল করার কিছু থাকে না।",
        "en": "Backup workers did not save time in this run: {t0:.2f} with b = 0, {t1:.2f} units per update with b = 1 — with few delays there is little to cut.",
    },
    "lesson06.v_hogwild_fastest": {
        "bn": "লস {target:.3f}-এ সবার আগে পৌঁছেছে: {fastest} ({seconds:.2f} সে.)। সবার সময় (সে.): {all}।",
        "en": "First to reach loss {target:.3f}: {fastest} ({seconds:.2f} s). Every run (s): {all}.",
    },
    "lesson06.v_hogwild_faster": {
        "bn": "লক ছাড়া Hogwild ({w}টি প্রসেস) একই লসে একটি প্রসেসের চেয়ে {speedup:.2f}× দ্রুত পৌঁছেছে।",
        "en": "Lock-free Hogwild ({w} processes) reached the same loss {speedup:.2f}× faster than one process.",
    },
    "lesson06.v_hogwild_noisy": {
        "bn": "লক ছাড়া Hogwild ({w}টি প্রসেস) বনাম একটি প্রসেস: {speedup:.2f}× — কিন্তু মাপার সময় মেশিন শান্ত ছিল না (টেবিলের শেষ কলাম), তাই কেন এমন হলো তা বলা হচ্ছে না। অন্য কাজ বন্ধ করে আবার চালাও।",
        "en": "Lock-free Hogwild ({w} processes) vs one process: {speedup:.2f}× — but the machine was not quiet while measuring (the table's last column), so no cause is given. Stop other work and run again.",
    },
    "lesson06.v_hogwild_not_faster": {
        "bn": "লক ছাড়া Hogwild ({w}টি প্রসেস) এই রানে একটি প্রসেসের চেয়ে দ্রুত হয়নি ({speedup:.2f}×): কোরগুলো খালি ছিল না, "
              "বা প্রসেসগুলো একই ওজনে লেখার টানাটানিতে সময় হারিয়েছে। অন্য কাজ বন্ধ করে আবার চালাও।",
        "en": "Lock-free Hogwild ({w} processes) was not faster than one process in this run ({speedup:.2f}×): the cores were "
              "not free, or the processes lost time fighting over the same weights. Stop other work and run again.",
    },
    # check 1: the asynchronous update rule
    "lesson06.check.update_shape": {
        "bn": "ফেরত দেওয়া মান theta-র আকারের একটি টেনসর হওয়া উচিত (নতুন প্যারামিটার)। theta - lr * গ্রেডিয়েন্ট ফেরত দাও।",
        "en": "Return a tensor with theta's shape (the new parameters): theta - lr * gradient.",
    },
    "lesson06.check.update_no_staleness": {
        "bn": "তুমি গ্রেডিয়েন্ট হিসাব করেছ সার্ভারের এখনকার theta-তে। কিন্তু কর্মী গণনা করেছিল তার পুরোনো কপিতে (theta_read) — সেটাই অ্যাসিঙ্ক্রোনাসের আসল কথা। grad_fn(theta_read, batch) ব্যবহার করো।",
        "en": "You computed the gradient at the server's current theta. The worker computed it at its old copy (theta_read) — that is the whole point of asynchrony. Use grad_fn(theta_read, batch).",
    },
    "lesson06.check.update_overwrites": {
        "bn": "তুমি কর্মীর পুরোনো কপি (theta_read) থেকে ধাপ নিয়েছ: এতে অন্য কর্মীদের এর মধ্যে করা সব আপডেট মুছে যায় (lost update)। গ্রেডিয়েন্টটি প্রয়োগ করো সার্ভারের এখনকার theta-তে।",
        "en": "You stepped from the worker's old copy (theta_read): that erases every update other workers made meanwhile (a lost update). Apply the gradient to the server's current theta.",
    },
    "lesson06.check.update_sign": {
        "bn": "চিহ্ন উল্টো: গ্রেডিয়েন্ট ডিসেন্টে গ্রেডিয়েন্টের উল্টো দিকে যেতে হয়: theta - lr * g।",
        "en": "Wrong sign: gradient descent moves against the gradient: theta - lr * g.",
    },
    "lesson06.check.update_no_lr": {
        "bn": "শেখার হার (lr) দিয়ে গুণ করতে ভুলে গেছ: theta - lr * g।",
        "en": "You forgot to multiply by the learning rate: theta - lr * g.",
    },
    "lesson06.check.update_no_gradient": {"bn": "তোমার ফাংশন grad_fn একবারও ডাকেনি: কর্মী যে কপি পড়েছিল (theta_read), সেখানে grad_fn(theta_read, batch) দিয়ে গ্রেডিয়েন্ট নাও।",
                                           "en": "Your function never called grad_fn: take the gradient with grad_fn(theta_read, batch), at the copy the worker read."},
    "lesson06.check.update_wrong": {
        "bn": "ফল মিলছে না। নিয়মটি: নতুন theta = theta - lr * grad_fn(theta_read, batch)।",
        "en": "The result does not match. The rule: new theta = theta - lr * grad_fn(theta_read, batch).",
    },
    "lesson06.check.update_sim": {
        "bn": "একটি পরীক্ষায় ঠিক, কিন্তু সিমুলেটরের ভেতরে অন্য ফল দিচ্ছে। theta বা theta_read-কে ইন-প্লেস (in-place, যেমন -=) বদলে ফেলছ না তো? নতুন টেনসর ফেরত দাও।",
        "en": "Right on one example, but different inside the simulator. Are you modifying theta or theta_read in place (e.g. -=)? Return a new tensor.",
    },
    "lesson06.check.update_ok": {
        "bn": "ঠিক হয়েছে! সিমুলেটরে তোমার নিয়ম রেফারেন্সের সাথে হুবহু মিলেছে (এই রানে সর্বোচ্চ পুরোনোত্ব {staleness})।",
        "en": "Correct! In the simulator your rule matches the reference exactly (max staleness in this run: {staleness}).",
    },
    # check 2: the SSP start rule
    "lesson06.check.rule_off_by_one": {
        "bn": "এক-ঘর ভুল (off-by-one): সীমা s মানে একজন কর্মী সবচেয়ে ধীরজনের চেয়ে ঠিক s ধাপ এগিয়ে থাকতেও পারে। < নয়, <= লাগবে। (s = 0-তে তোমার নিয়মে কেউ কখনো শুরুই করতে পারবে না!)",
        "en": "Off by one: bound s means a worker may be exactly s steps ahead of the slowest. Use <=, not <. (With s = 0 your rule lets nobody start, ever!)",
    },
    "lesson06.check.rule_spread": {
        "bn": "তুমি সবচেয়ে দ্রুত আর সবচেয়ে ধীর কর্মীর ফারাক দেখছ (max - min)। প্রশ্নটা হলো এই কর্মীটি নিজে বেশি এগিয়ে গেছে কিনা: clock - min(clocks) <= bound। (তোমার নিয়মে সবচেয়ে ধীর কর্মীও আটকে যায়!)",
        "en": "You look at the gap between the fastest and slowest workers (max - min). The question is whether THIS worker is too far ahead: clock - min(clocks) <= bound. (Your rule blocks even the slowest worker!)",
    },
    "lesson06.check.rule_no_bound": {
        "bn": "তোমার নিয়ম সবাইকে সবসময় শুরু করতে দেয়: এটা সাধারণ অ্যাসিঙ্ক্রোনাস, কোনো সীমা নেই। clock - min(clocks) <= bound হলে তবেই True।",
        "en": "Your rule always lets everyone start: that is plain async, no bound. Return True only if clock - min(clocks) <= bound.",
    },
    "lesson06.check.rule_wrong": {
        "bn": "clock={clock}, clocks={clocks}, bound={bound}-এর জন্য উত্তর হওয়া উচিত {expected}। নিয়মটি: clock - min(clocks) <= bound।",
        "en": "For clock={clock}, clocks={clocks}, bound={bound} the answer should be {expected}. The rule: clock - min(clocks) <= bound.",
    },
    "lesson06.check.rule_sim": {
        "bn": "উদাহরণগুলোতে ঠিক, কিন্তু সিমুলেটরে অন্য সময়রেখা দিচ্ছে। clocks তালিকাটি বদলে ফেলছ না তো? শুধু পড়ো, বদলিও না।",
        "en": "Right on the examples, but the simulator gives another timeline. Are you changing the clocks list? Only read it.",
    },
    "lesson06.check.rule_ok": {
        "bn": "ঠিক হয়েছে! সিমুলেটরে তোমার নিয়ম (s = {bound}) রেফারেন্সের মতো একই সময়রেখা দিয়েছে; মোট সময় {time:.1f}।",
        "en": "Correct! In the simulator your rule (s = {bound}) gave the reference timeline; total time {time:.1f}.",
    },
    # check 3: time per epoch
    "lesson06.check.epoch_type": {
        "bn": "দুটি সংখ্যা ফেরত দাও: (sync_time, async_time)।",
        "en": "Return two numbers: (sync_time, async_time).",
    },
    "lesson06.check.epoch_sync_mean": {
        "bn": "সিঙ্ক্রোনাসে প্রতিটি ধাপ শেষ হয় সবচেয়ে ধীর কর্মী শেষ করলে: গড় নয়, max(step_times) নাও।",
        "en": "A synchronous step ends when the slowest worker finishes: take max(step_times), not the mean.",
    },
    "lesson06.check.epoch_sync_workers": {
        "bn": "প্রতি সিঙ্ক্রোনাস ধাপে W জন কর্মী একসাথে W টি batch শেষ করে: ধাপের সংখ্যা n_batches / W, n_batches নয়।",
        "en": "Each synchronous step finishes W batches at once: the number of steps is n_batches / W, not n_batches.",
    },
    "lesson06.check.epoch_sync_last": {"bn": "সিঙ্ক্রোনাসের প্রতি ধাপে তালিকার শেষ কর্মীর সময় নিয়েছ; ধাপ শেষ হয় সবচেয়ে ধীরজন শেষ করলে — max(step_times), সে তালিকার যেখানেই থাকুক।",
                                        "en": "For each synchronous step you took the last worker's time in the list; a step ends when the slowest finishes — max(step_times), wherever it is in the list."},
    "lesson06.check.epoch_sync_wrong": {
        "bn": "সিঙ্ক্রোনাস সময় মিলছে না (কর্মী {workers}, ধাপের সময় {times}, batch {n}: সিমুলেটর বলছে {expected:.2f})। ধাপ = ceil(n / W), প্রতি ধাপ = max(step_times)।",
        "en": "The sync time does not match (workers {workers}, step times {times}, {n} batches: the simulator says {expected:.2f}). Steps = ceil(n / W), each takes max(step_times).",
    },
    "lesson06.check.epoch_async_waits": {
        "bn": "অ্যাসিঙ্ক্রোনাসে কেউ কারও জন্য অপেক্ষা করে না! প্রতিটি কর্মী নিজের গতিতে চলে: সবাই মিলে প্রতি একক সময়ে sum(1 / t) টি batch শেষ করে।",
        "en": "In async nobody waits for anybody! Each worker runs at its own pace: together they finish sum(1 / t) batches per unit of time.",
    },
    "lesson06.check.epoch_async_mean": {
        "bn": "গড় ধাপের সময় দিয়ে হিসাব করলে ধীর কর্মীর প্রভাব বেশি ধরা হয়। হার (rate) যোগ করো: async ≈ n_batches / sum(1 / t)।",
        "en": "Using the mean step time overweights the slow worker. Add the rates: async ≈ n_batches / sum(1 / t).",
    },
    "lesson06.check.epoch_async_wrong": {
        "bn": "অ্যাসিঙ্ক্রোনাস সময় মিলছে না (ধাপের সময় {times}, batch {n}: সিমুলেটর বলছে {expected:.2f})। প্রতি কর্মীর হার 1/t; মোট হার sum(1/t)।",
        "en": "The async time does not match (step times {times}, {n} batches: the simulator says {expected:.2f}). Each worker's rate is 1/t; the total rate is sum(1/t).",
    },
    "lesson06.check.epoch_ok": {
        "bn": "ঠিক হয়েছে! সিমুলেটরও তাই বলে: সিঙ্ক্রোনাস {sync:.1f}, অ্যাসিঙ্ক্রোনাস {asyn:.1f} — এখানে অ্যাসিঙ্ক্রোনাস {speedup:.2f} গুণ দ্রুত (কিন্তু পুরোনো গ্রেডিয়েন্টের দামে)।",
        "en": "Correct! The simulator agrees: sync {sync:.1f}, async {asyn:.1f} — async is {speedup:.2f}× faster here (at the price of stale gradients).",
    },
}

# Said by this package's code (moved from fastrain_lib/async_sgd/messages.py).
MESSAGES.update({
    "lesson06.real_panel_title": {"bn": "আসল প্রসেস: প্যারামিটার সার্ভার (ধীর কর্মীসহ) আর local SGD",
                            "en": "Real processes: parameter server (with a straggler) and local SGD"},
    "lesson06.real_delay": {"bn": "ধীর কর্মীর দেরি (ms/ধাপ)", "en": "straggler delay (ms/step)"},
    "lesson06.real_period": {"bn": "গড়ের পর্যায় H", "en": "averaging period H"},
    "lesson06.real_note": {"bn": "সব সংখ্যা এই মেশিনে এইমাত্র মাপা: {workers} জন কর্মী, প্রতিজন {steps}টি গ্রেডিয়েন্ট; local SGD-তে প্রতিজন {local_steps}টি ধাপ। কর্মী কোরের চেয়ে বেশি হলে প্রসেসগুলো কোর ভাগ করে — সময় বাড়ে।",
                     "en": "Every number was measured just now on this machine: {workers} workers, {steps} gradients each; {local_steps} local steps each for local SGD. With more workers than cores the processes share cores — times grow."},
    "lesson06.real_v_ps": {"bn": "আসল সার্ভারে ধীর কর্মীর দেরি {delay:g} ms: অ্যাসিঙ্ক্রোনাস {a_tp:.0f} গ্রেডিয়েন্ট/সে., সিঙ্ক্রোনাস {s_tp:.0f} গ্রেডিয়েন্ট/সে. — অ্যাসিঙ্ক্রোনাস {ratio:.2f}× । দাম: অ্যাসিঙ্ক্রোনাসে গড় পুরোনোত্ব {stale:.2f}, ধীর কর্মীর গ্রেডিয়েন্টের {slow:.2f} (সিঙ্ক্রোনাসে 0)। শেষ লস: অ্যাসিঙ্ক্রোনাস {a_loss:.3f}, সিঙ্ক্রোনাস {s_loss:.3f}।",
                     "en": "Real server, straggler delay {delay:g} ms: async {a_tp:.0f} gradients/s, sync {s_tp:.0f} gradients/s — async {ratio:.2f}×. The price: mean staleness {stale:.2f} in async, {slow:.2f} for the straggler's gradients (sync: 0). Final loss: async {a_loss:.3f}, sync {s_loss:.3f}."},
    "lesson06.real_v_sim": {"bn": "একই মাপা গতিতে সিমুলেটরের গড় পুরোনোত্ব {sim:.2f}, আসল সার্ভারের {real:.2f} — {agree}",
                      "en": "With the same measured speeds the simulator's mean staleness is {sim:.2f}, the real server's {real:.2f} — {agree}"},
    "lesson06.real_agree": {"bn": "কাছাকাছি: সিমুলেটর আসল সার্ভারের পুরোনোত্ব ঠিকই ধরে।", "en": "close: the simulator captures the real server's staleness."},
    "lesson06.real_disagree_noisy": {"bn": "বেশ আলাদা — কিন্তু মাপার সময় মেশিন শান্ত ছিল না, তাই কারণ বলা হচ্ছে না; মেশিন শান্ত হলে আবার চালাও।",
                               "en": "quite different — but the machine was not quiet while measuring, so no cause is given; run again when it is quiet."},
    "lesson06.real_disagree": {"bn": "বেশ আলাদা: আসল সার্ভারে RPC-র দেরি আর প্রসেসগুলোর কোর ভাগাভাগিও সময় বদলায়, যা সিমুলেটরে নেই (অন্য কাজ চললে এটা বাড়ে)।",
                         "en": "quite different: on the real server RPC latency and processes sharing cores also change the timing, which the simulator leaves out (more so on a busy machine)."},
    "lesson06.real_v_local": {"bn": "local SGD: H = {h} -এ {rounds}টি all-reduce (H = 1-এ {rounds1}টি) — যোগাযোগ {saved:.0%} কম; শেষ লস {loss:.3f} বনাম {loss1:.3f} ({diff:+.3f})।",
                        "en": "local SGD: {rounds} all-reduces with H = {h} ({rounds1} with H = 1) — {saved:.0%} less communication; final loss {loss:.3f} vs {loss1:.3f} ({diff:+.3f})."},
    # the wall time apart from the counts and losses above, which a busy machine does not change
    "lesson06.real_v_local_time": {"bn": "মোট সময়: H = {h} -এ {wall:.2f} সে., H = 1-এ {wall1:.2f} সে.।",
                             "en": "Total time: {wall:.2f} s with H = {h}, {wall1:.2f} s with H = 1."},
    "lesson06.real_check.type": {"bn": "দুটি সংখ্যা ফেরত দাও: (rounds, saved) — all-reduce-এর সংখ্যা (পূর্ণসংখ্যা) আর H = 1-এর তুলনায় বাঁচানো ভাগ (0 থেকে 1)। পেয়েছি: {got}।",
                           "en": "Return two numbers: (rounds, saved) — the number of all-reduces (a whole number) and the share saved against H = 1 (0 to 1). Got: {got}."},
    "lesson06.real_check.floor": {"bn": "steps = {steps}, H = {h}: শেষের অসম্পূর্ণ পর্বেও একবার গড় হয় (না হলে কর্মীরা আলাদা ওজনে শেষ করে)। তাই rounds = ceil(steps / H), steps // H নয়।",
                            "en": "steps = {steps}, H = {h}: the last, incomplete period is averaged too (otherwise the workers end on different weights). So rounds = ceil(steps / H), not steps // H."},
    "lesson06.real_check.rounds_float": {"bn": "all-reduce-এর সংখ্যা ঠিক, কিন্তু পূর্ণসংখ্যা নয়: পেয়েছি {got}। কাজটি একটি পূর্ণসংখ্যা (int) চায় — math.ceil বা // int দেয়, / দিয়ে ভাগ করলে float আসে; দরকার হলে int(...) করো।",
                                         "en": "The number of all-reduces is right but not a whole number: got {got}. The task asks for an integer (int) — math.ceil or // give an int, dividing with / gives a float; use int(...) if needed."},
    "lesson06.real_check.not_int": {"bn": "all-reduce-এর সংখ্যা ভগ্নাংশ হয় না: steps / H নয়, math.ceil(steps / H)।",
                              "en": "A number of all-reduces is not a fraction: not steps / H but math.ceil(steps / H)."},
    "lesson06.real_check.times": {"bn": "H বড় মানে কম কথা বলা: প্রতি H ধাপে একবার। steps * H নয়, ceil(steps / H)।",
                            "en": "A larger H means talking less: once every H steps. Not steps * H but ceil(steps / H)."},
    "lesson06.real_check.saved_inverted": {"bn": "rounds ঠিক, কিন্তু saved উল্টো: rounds / steps হলো যতটুকু যোগাযোগ *বাকি থাকল*; বাঁচল 1 − rounds / steps।",
                                     "en": "rounds is right but saved is inverted: rounds / steps is the share that *remains*; saved is 1 − rounds / steps."},
    "lesson06.real_check.saved_1_over_h": {"bn": "rounds ঠিক, কিন্তু saved-এ 1 − 1/H ধরেছ: steps H দিয়ে বিভাজ্য না হলে শেষ পর্বের বাড়তি all-reduce বাদ পড়ে। 1 − rounds / steps নাও।",
                                     "en": "rounds is right but saved uses 1 − 1/H: when steps is not a multiple of H that misses the last period's extra all-reduce. Use 1 − rounds / steps."},
    "lesson06.real_check.saved_wrong": {"bn": "steps = {steps}, H = {h}: rounds ঠিক ({rounds}), কিন্তু saved হওয়া উচিত {expected:.4f} (H = 1-এ প্রতি ধাপে একবার, তাই 1 − rounds / steps)।",
                                  "en": "steps = {steps}, H = {h}: rounds is right ({rounds}), but saved should be {expected:.4f} (H = 1 averages every step, so 1 − rounds / steps)."},
    "lesson06.real_check.rounds_wrong": {"bn": "steps = {steps}, H = {h}: all-reduce হওয়া উচিত {expected}টি (আসল worker-এর নিয়ম local_sgd.averages_after যা গোনে), তুমি দিয়েছ {got}।",
                                   "en": "steps = {steps}, H = {h}: there should be {expected} all-reduces (what the real worker's rule local_sgd.averages_after counts); you gave {got}."},
    "lesson06.real_check.ok": {"bn": "ঠিক হয়েছে! আসল worker-এর নিয়মও তাই গোনে: যেমন steps = {steps}, H = {h}-এ {rounds}টি all-reduce, যোগাযোগ {saved:.0%} কম।",
                         "en": "Correct! The real worker's rule counts the same: e.g. steps = {steps}, H = {h} gives {rounds} all-reduces, {saved:.0%} less communication."},
})
