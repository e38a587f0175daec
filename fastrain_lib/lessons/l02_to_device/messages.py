"""Messages of lesson 02 (.to(device)): its transfer.py, input_pipeline.py, panel.py, checks.py and diagnose.py."""

MESSAGES = {
    # transfer.py, input_pipeline.py
    "transfer.needs_gpu": {
        "bn": "হোস্ট→ডিভাইস কপি মাপতে GPU লাগে; এই মেশিনে শুধু CPU আছে, তাই এখানে কিছু সরানোর নেই। ডেটাশিটের বা reference/-এর সংখ্যা দেখো।",
        "en": "Measuring host→device copies needs a GPU; this machine has only a CPU, so there is nothing to move here. See the datasheet or reference/ figures.",
    },
    "transfer.progress_epoch": {"bn": "ইপক {epoch}/{epochs} ({device})", "en": "epoch {epoch}/{epochs} ({device})"},
    "transfer.progress_loader": {"bn": "DataLoader-এর সেটিংগুলো মাপা হচ্ছে", "en": "measuring the DataLoader settings"},
    "transfer.progress_pipeline": {"bn": "ডেটার অপেক্ষা বনাম ধাপ মাপা হচ্ছে", "en": "measuring waiting for data vs the step"},
    "transfer.startup_s": {"bn": "শুরুর সময় (সেকেন্ড)", "en": "start-up (s)"},
    "transfer.pin_ignored": {
        "bn": "এই মেশিনে GPU নেই, তাই pin_memory=True কোনো কাজ করে না (PyTorch এটি উপেক্ষা করে)।",
        "en": "No GPU here, so pin_memory=True does nothing (PyTorch ignores it).",
    },
    # panel.py
    "lesson02.panel_title": {
        "bn": "প্রশিক্ষণের গতি: ডিভাইস, batch আকার, num_workers, pin_memory বদলে দেখো",
        "en": "Training speed: change the device, batch size, num_workers, pin_memory",
    },
    "lesson02.num_workers": {"bn": "num_workers (কর্মী প্রসেস)", "en": "num_workers (worker processes)"},
    "lesson02.pin_memory": {"bn": "pin_memory", "en": "pin_memory"},
    "lesson02.panel_plot": {
        "bn": "{device}, batch {batch_size}, কর্মী {num_workers}, pin_memory {pin}: {rate:.0f} নমুনা/সেকেন্ড",
        "en": "{device}, batch {batch_size}, workers {num_workers}, pin_memory {pin}: {rate:.0f} samples/s",
    },
    "lesson02.panel_note": {
        "bn": "নমুনা/সেকেন্ড গোনা হয়েছে প্রথম batch-এর পর থেকে; কর্মী প্রসেস চালু হতে লেগেছে {startup:.2f} সেকেন্ড (আলাদা দেখানো)।",
        "en": "Samples/s counted after the first batch; starting the worker processes took {startup:.2f} s (shown apart).",
    },
    "lesson02.samples_seen": {"bn": "দেখা নমুনার সংখ্যা", "en": "samples seen"},
    "lesson02.history": {"bn": "শেষ কয়েকটি চালানোর গতি", "en": "speed of the last few runs"},
    # checks.py: to_device
    "lesson02.check.not_moved": {
        "bn": "টেনসরটি নির্দিষ্ট ডিভাইসে যায়নি। একটি টেনসর পেলে x.to(device) ফেরত দাও — .to() নতুন টেনসর ফেরত দেয়, মূলটি যেখানে ছিল সেখানেই থাকে।",
        "en": "The tensor did not reach the device. For a tensor, return x.to(device) — .to() returns a new tensor and leaves the original where it was.",
    },
    "lesson02.check.nested_not_moved": {
        "bn": "ভেতরের (nested) টেনসরগুলো সরেনি: শুধু উপরের স্তর সরানো হয়েছে। tuple বা list-এর প্রতিটি উপাদানের উপর to_device আবার ডাকো (রিকার্শন)।",
        "en": "Nested tensors were not moved: only the top level was. Call to_device again on every element of a tuple or list (recursion).",
    },
    "lesson02.check.scalar_not_moved": {
        "bn": "একটি 0-মাত্রার টেনসর (যেমন tensor(3), যার আকার ()) সরেনি। সংখ্যার মতো দেখালেও এটা টেনসর: একেও .to(device) করতে হয়। "
              "শর্ত রাখো isinstance(x, torch.Tensor), x.dim() দেখে বাদ দিও না।",
        "en": "A 0-d tensor (such as tensor(3), shape ()) was not moved. It looks like a number but is a tensor: it needs "
              ".to(device) too. Test isinstance(x, torch.Tensor); do not skip it by x.dim().",
    },
    "lesson02.check.dict_values": {
        "bn": "dict-এর মানগুলো (values) সরেনি। {key: to_device(value, device) for key, value in batch.items()} দিয়ে নতুন dict বানাও।",
        "en": "The dict's values were not moved. Build a new dict: {key: to_device(value, device) for key, value in batch.items()}.",
    },
    "lesson02.check.container_type": {
        "bn": "পাত্রের ধরন (container type) বদলে গেছে: tuple ঢুকলে tuple, list ঢুকলে list, dict ঢুকলে dict ফেরত দিতে হবে। "
              "list comprehension সবসময় list বানায় — tuple-এর জন্য tuple(...) বা type(batch)(...) ব্যবহার করো।",
        "en": "The container type changed: a tuple must come back as a tuple, a list as a list, a dict as a dict. "
              "A list comprehension always makes a list — use tuple(...) or type(batch)(...) for tuples.",
    },
    "lesson02.check.dict_keys": {
        "bn": "dict-এর কী (key) বা তাদের ক্রম বদলে গেছে; সব কী একই ক্রমে রাখো।",
        "en": "The dict's keys (or their order) changed; keep every key, in the same order.",
    },
    "lesson02.check.length": {
        "bn": "ফেরত দেওয়া tuple/list-এর দৈর্ঘ্য মূলটির সমান নয়: কোনো উপাদান বাদ পড়েছে বা যোগ হয়েছে।",
        "en": "The returned tuple/list has a different length: an element was dropped or added.",
    },
    "lesson02.check.not_tensor": {
        "bn": "একটি টেনসর আর টেনসর থাকেনি (হয়তো .tolist() বা .numpy() হয়ে গেছে)। শুধু .to(device) করো।",
        "en": "A tensor stopped being a tensor (perhaps .tolist() or .numpy()). Only call .to(device).",
    },
    "lesson02.check.tensor_changed": {
        "bn": "টেনসরের আকার বা ডেটা টাইপ বদলে গেছে; to_device শুধু ডিভাইস বদলাবে।",
        "en": "A tensor's shape or dtype changed; to_device must change only the device.",
    },
    "lesson02.check.non_tensor_changed": {
        "bn": "টেনসর নয় এমন মান (যেমন নাম বা সংখ্যা) বদলে গেছে বা হারিয়ে গেছে। এগুলো যেমন আছে তেমনই ফেরত দাও।",
        "en": "A value that is not a tensor (a name, a number) was changed or lost. Return such values as they are.",
    },
    "lesson02.check.mutated_input": {
        "bn": "তোমার ফাংশন মূল batch-টাই বদলে দিয়েছে (ইন-প্লেস, in-place)। নতুন list/dict বানিয়ে ফেরত দাও, মূলটি যেমন ছিল রেখে দাও।",
        "en": "Your function changed the original batch in place. Build and return new lists/dicts; leave the original as it was.",
    },
    # checks.py: the training loop
    "lesson02.check.model_not_moved": {
        "bn": "মডেলের ওজন ভুল ডিভাইসে রয়ে গেছে। লুপের আগে model = model.to(device) (বা model.to(device)) লেখো।",
        "en": "The model's weights stayed on the wrong device. Before the loop write model = model.to(device) (or model.to(device)).",
    },
    "lesson02.check.inputs_not_moved": {
        "bn": "ইনপুট (inputs) ডিভাইসে সরানো হয়নি। লুপের ভেতরে inputs = inputs.to(device) লেখো — .to() নতুন টেনসর দেয়, তাই ফলটি আবার নামে রাখতে হয়।",
        "en": "The inputs were not moved to the device. Inside the loop write inputs = inputs.to(device) — .to() returns a new tensor, so keep the result.",
    },
    "lesson02.check.targets_not_moved": {
        "bn": "লক্ষ্য (targets) ডিভাইসে সরানো হয়নি, তাই loss হিসাব করতে গিয়ে ডিভাইস মেলেনি। inputs-এর মতো targets = targets.to(device) লেখো।",
        "en": "The targets were not moved to the device, so computing the loss mixed devices. Like the inputs: targets = targets.to(device).",
    },
    "lesson02.check.device_mismatch": {
        "bn": "ডিভাইস মেলেনি এমন ত্রুটি হয়েছে। মডেল, inputs আর targets — তিনটিই একই device-এ সরাও।",
        "en": "A device-mismatch error happened. Move all three — the model, the inputs and the targets — to the same device.",
    },
    "lesson02.check.no_forward": {
        "bn": "মডেল একবারও ডাকা হয়নি: লুপে outputs = model(inputs) আছে তো?",
        "en": "The model was never called: is outputs = model(inputs) in the loop?",
    },
    "lesson02.check.no_step": {
        "bn": "{batches}টি batch-এ optimizer.step() ডাকা হয়েছে {steps} বার। প্রতিটি batch-এ ঠিক একবার ডাকতে হবে, backward-এর পরে।",
        "en": "optimizer.step() was called {steps} times for {batches} batches. Call it exactly once per batch, after backward.",
    },
    "lesson02.check.no_backward": {
        "bn": "ওজন একটুও বদলায়নি: loss.backward() ডাকা হয়েছে তো? ব্যাকওয়ার্ড পাস (backward pass) ছাড়া optimizer.step()-এর কাছে কোনো গ্রেডিয়েন্ট থাকে না।",
        "en": "The weights did not change at all: is loss.backward() called? Without the backward pass optimizer.step() has no gradients.",
    },
    "lesson02.check.wrong_losses": {
        "bn": "ফাংশনটি প্রতিটি batch-এর জন্য একটি করে loss-এর list ফেরত দেবে ({batches}টি)। losses.append(loss.detach()) লেখো, আর শেষে return losses।",
        "en": "The function must return a list with one loss per batch ({batches}). Write losses.append(loss.detach()) and return losses at the end.",
    },
    # checks.py: throughput
    "lesson02.check.not_number": {"bn": "একটি সংখ্যা (float) ফেরত দাও।", "en": "Return a number (float)."},
    "lesson02.check.forgot_batch": {
        "bn": "তুমি প্রতি সেকেন্ডে ধাপ (steps/s) হিসাব করেছ। প্রতিটি ধাপে batch_size-টি নমুনা থাকে: batch_size × steps ÷ seconds।",
        "en": "You computed steps per second. Each step holds batch_size samples: batch_size × steps ÷ seconds.",
    },
    "lesson02.check.inverted": {
        "bn": "ভাগ উল্টে গেছে: এটা প্রতি নমুনার সময়। থ্রুপুট (throughput) = নমুনার সংখ্যা ÷ সময়।",
        "en": "The division is upside down: that is the time per sample. Throughput = number of samples ÷ time.",
    },
    "lesson02.check.wrong_value": {
        "bn": "batch_size={batch_size}, steps={steps}, seconds={seconds} হলে উত্তর {expected:.4g} হওয়ার কথা, তুমি পেয়েছ {got:.4g}।",
        "en": "For batch_size={batch_size}, steps={steps}, seconds={seconds} the answer is {expected:.4g}; you got {got:.4g}.",
    },
    "lesson02.check.not_a_choice": {"bn": "এগুলোর একটি অক্ষর দাও: {choices}।", "en": "Give one of these letters: {choices}."},
    "lesson02.check.answer_a": {
        "bn": "ঠিক নয়। batch বড় হলেও প্রতিটি নমুনার গণনা একই থাকে — গণনা কমে না। নিজের মাপা প্লটে দেখো: প্রতি ধাপের সময় বাড়ে, কিন্তু নমুনার তুলনায় কম হারে।",
        "en": "Not right. A bigger batch does not make each sample's arithmetic smaller. Look at your plot: the time per step grows, but more slowly than the number of samples.",
    },
    "lesson02.check.answer_c": {
        "bn": "ঠিক নয়। batch আকার বদলালে মডেলের ওজনের সংখ্যা বদলায় না; সঠিকতার সাথে গতির এই সম্পর্কও নেই।",
        "en": "Not right. The batch size does not change the number of weights, and accuracy is not what sets the speed.",
    },
    "lesson02.check.answer_d": {
        "bn": "ঠিক নয়। একই মডেল আর একই ডিভাইস; ঘড়ির গতি (clock) batch আকারের সাথে বদলায় না।",
        "en": "Not right. Same model, same device; the clock speed does not change with the batch size.",
    },
    "lesson02.check.answer_right": {
        "bn": "ঠিক! প্রতিটি ধাপের একটা নির্দিষ্ট খরচ আছে (Python, কার্নেল চালু করা, অপটিমাইজারের ধাপ); বড় batch সেই খরচ বেশি নমুনায় ভাগ করে, আর বড় ম্যাট্রিক্স গুণ হার্ডওয়্যার ভালোভাবে ব্যবহার করে — যতক্ষণ না হার্ডওয়্যার পুরো ব্যস্ত হয়ে যায়।",
        "en": "Right! Each step has a fixed cost (Python, launching kernels, the optimizer step); a bigger batch spreads it over more samples, and bigger matrix multiplies use the hardware better — until the hardware is fully busy.",
    },
    # diagnose.py: task 4, diagnosing a slow loop
    "lesson02.check.diag.wrong_result": {
        "bn": "ফাংশনটি {{'mean_loss': ..., 'accuracy': ...}} এই দুটি key-সহ একটি dict ফেরত দেবে; পাওয়া গেল {got}।",
        "en": "The function must return a dict with the keys 'mean_loss' and 'accuracy'; got {got}.",
    },
    "lesson02.check.diag.wrong_weights": {
        "bn": "{steps}টি ধাপের পরে মডেলের ওজন ধীর লুপের ওজনের সাথে মেলেনি। গতি বাড়াতে গিয়ে প্রশিক্ষণ বদলানো চলবে না: "
              "shuffle=False রাখো (একই ক্রমে একই batch), batch_size আর steps যা দেওয়া হয়েছে তা-ই, প্রতি ধাপে "
              "zero_grad → forward → loss → backward → step একবার করে।",
        "en": "After {steps} steps the model's weights differ from the slow loop's. Making it faster must not change the "
              "training: keep shuffle=False (the same batches in the same order), the given batch_size and steps, and "
              "zero_grad → forward → loss → backward → step once per step.",
    },
    "lesson02.check.diag.wrong_loss": {
        "bn": "mean_loss মেলেনি: পাওয়া গেল {got}, হওয়ার কথা {want}। প্রতি ধাপের loss (loss.detach()) যোগ করে শেষে steps দিয়ে ভাগ করো।",
        "en": "mean_loss does not match: got {got}, expected {want}. Add every step's loss (loss.detach()) and divide by steps at the end.",
    },
    "lesson02.check.diag.wrong_accuracy": {
        "bn": "accuracy মেলেনি: পাওয়া গেল {got}, হওয়ার কথা {want}। সঠিক অনুমানের মোট সংখ্যা ÷ দেখা নমুনার মোট সংখ্যা — "
              "(outputs.argmax(dim=1) == labels).sum() দিয়ে গোনো, শেষে একবার সংখ্যায় বদলাও।",
        "en": "accuracy does not match: got {got}, expected {want}. Correct guesses ÷ samples seen — count with "
              "(outputs.argmax(dim=1) == labels).sum() and turn it into a number once, at the end.",
    },
    "lesson02.check.diag.python_loop": {
        "bn": "প্রোফাইলে প্রতি ধাপে {ops:.0f}টি অপারেশন, ঠিক করা লুপে যেখানে প্রায় {ref:.0f}টি: batch-এর প্রতিটি নমুনার "
              "জন্য আলাদা ছোট অপারেশন চলছে (Python লুপে guess == label, int(...))। এটা ওভারহেড-সীমিত কাজ: "
              "পুরো batch একসাথে তুলনা করো — (outputs.argmax(dim=1) == labels).sum() — একটি অপারেশনে।",
        "en": "The profile shows {ops:.0f} ops per step where the fixed loop has about {ref:.0f}: a separate tiny op runs "
              "for every sample of the batch (guess == label, int(...) in a Python loop). That is overhead-bound work: "
              "compare the whole batch at once — (outputs.argmax(dim=1) == labels).sum() — in one op.",
    },
    "lesson02.check.diag.item_every_step": {
        "bn": "প্রোফাইলে aten::_local_scalar_dense {items} বার ({steps}টি ধাপে): প্রতি ধাপে একটি সংখ্যা CPU-তে পড়া হচ্ছে "
              "(.item(), float(...) বা int(...))। GPU-তে প্রতিটি পড়া একটি সিঙ্ক্রোনাইজেশন। loss আর সঠিক উত্তরের সংখ্যা "
              "টেনসরেই জমাও (loss.detach()), শেষে একবার .item()।",
        "en": "The profile shows aten::_local_scalar_dense {items} times (in {steps} steps): a number is read to the CPU every "
              "step (.item(), float(...) or int(...)). On a GPU each read is a synchronization. Keep the loss and the "
              "correct count in tensors (loss.detach()) and call .item() once, at the end.",
    },
    "lesson02.check.diag.data_in_main": {
        "bn": "প্রোফাইলে fastrain::load_sample {samples} বার: প্রতিটি নমুনা প্রশিক্ষণের প্রসেসেই ডিকোড হচ্ছে, আর সময়ের "
              "{share:.0%} যাচ্ছে DataLoader-এর next()-এ। কাজটা বাদ দেওয়া যায় না, সরানো যায়: DataLoader-এ num_workers=1 বা 2 "
              "দাও — তখন কর্মী প্রসেস পরের batch বানায়, প্রশিক্ষণ থামে না।",
        "en": "The profile shows fastrain::load_sample {samples} times: every sample is decoded in the training process, and "
              "{share:.0%} of the time goes into the DataLoader's next(). The work cannot be skipped, only moved: give the "
              "DataLoader num_workers=1 or 2, so worker processes make the next batch while training goes on.",
    },
    "lesson02.check.diag.expected": {
        "bn": "কত গুণ আশা করা হলো আর কেন: একই রাউন্ডগুলোতে, ধীর লুপ আর তোমার লুপের পাশাপাশি, কোর্সের নিজের সমাধান "
              "(diagnose.fast_train_steps) এই মেশিনে এখন ধীর লুপের {reference:.2f} গুণ গতি পেয়েছে। যাচাই চায় সেই লাভের "
              "{gain:.0%}: অন্তত {need:.2f} গুণ।",
        "en": "What was expected, and why: in the same rounds, beside the slow loop and yours, the course's own fix "
              "(diagnose.fast_train_steps) reached {reference:.2f}× the slow loop's speed on this machine, now. The check "
              "asks for {gain:.0%} of that gain: at least {need:.2f}×.",
    },
    "lesson02.check.diag.not_faster": {
        "bn": "প্রোফাইলে তিনটি সমস্যাই আর নেই, কিন্তু মাপা steps/s বাড়েনি যথেষ্ট: ধীর লুপের {speedup:.2f} গুণ (প্রতি রাউন্ডে: {rounds})। "
              "{why} কোর্সের সমাধান একই রাউন্ডে, একই মেশিনে মাপা — তাই তুলনাটি টেকে: num_workers কত দিয়েছ, আর লুপে নতুন কোনো ধীর কাজ ঢুকেছে কিনা দেখো।",
        "en": "None of the three problems is left in the profile, but the measured steps/s did not grow enough: {speedup:.2f}× "
              "the slow loop (per round: {rounds}). {why} The course's fix ran in the same rounds on the same machine, so the "
              "comparison stands: check your num_workers, and whether some new slow work entered the loop.",
    },
    "lesson02.check.diag.noisy": {
        "bn": "প্রোফাইলে তিনটি সমস্যাই আর নেই ✔, কিন্তু গতি মাপার সময় মেশিন ব্যস্ত ছিল (বা রাউন্ডগুলো একে অন্যের সাথে মেলেনি), তাই মাপা {speedup:.2f} গুণ "
              "(দরকার {need:.2f}) দিয়ে কিছুই বলা যায় না — এটা ভুল নয়, অনিশ্চিত। {why} অন্য ভারী কাজ থামিয়ে যাচাই সেলটি আবার চালাও।",
        "en": "None of the three problems is left in the profile ✔, but the machine was busy while the speed was measured (or the rounds "
              "disagreed), so the measured {speedup:.2f}× (needed {need:.2f}) decides nothing — not wrong, just unknown. {why} Stop "
              "other heavy work and run the check cell again.",
    },
    "lesson02.check.diag.correct": {
        "bn": "ঠিক আছে: একই ওজন আর একই সংখ্যা, প্রোফাইলে তিনটি সমস্যার কোনোটি নেই, আর স্থির অবস্থায় steps/s ধীর লুপের {speedup:.2f} গুণ। {why}",
        "en": "Correct: the same weights and numbers, none of the three problems in the profile, and {speedup:.2f}× the slow "
              "loop's steady steps/s. {why}",
    },
    "lesson02.check.diag.correct_no_speed": {
        "bn": "ঠিক আছে: একই ওজন আর একই সংখ্যা, প্রোফাইলে তিনটি সমস্যার কোনোটি নেই। গতি চাওয়া হয়নি ({speedup:.2f} গুণ মাপা গেছে): {why} "
              "কোর্সের নিজের সমাধানও এখানে এখন {gain_min:.0%}-এর কম লাভ পেয়েছে (কর্মীদের জন্য ফাঁকা কোর নেই, বা সরানোর মতো অপেক্ষা নেই), তাই গতি দিয়ে এখানে কিছু প্রমাণ হয় না।",
        "en": "Correct: the same weights and numbers, none of the three problems in the profile. No speed-up was required "
              "({speedup:.2f}× measured): {why} The course's own fix gained less than {gain_min:.0%} here, now (no idle core for "
              "workers, or no waiting to move), so speed proves nothing here.",
    },
    "lesson02.check.graph_kept": {
        "bn": "ওজন আর loss-এর মান ঠিক, কিন্তু লুপ শেষ হওয়ার পরেও {alive}টি ধাপের loss তার পুরো গণনা-গ্রাফ (grad_fn) নিয়ে বেঁচে আছে: "
              "তুমি list-এ loss নিজেকেই রেখেছ। এভাবে প্রতিটি ধাপের গ্রাফ মেমরিতে থেকে যায়। losses.append(loss.detach()) লেখো "
              "(বা loss.item(), সংখ্যা হিসেবে)।",
        "en": "The weights and the loss values are right, but after the loop {alive} steps' losses are still alive with their "
              "whole computation graph (grad_fn): the list keeps `loss` itself. That keeps every step's graph in memory. "
              "Write losses.append(loss.detach()) (or loss.item(), as a number).",
    },
    # transfer: pinning, early reads, overlap
    "transfer.verdict_pin_cpu": {
        "bn": "এই মেশিনে GPU নেই, তাই পিন করা যায় না; মাপা গেল খরচের দিকটা: pin_memory() অন্তত যে কপি করে — {mb:.1f} MB-এর "
              "একটি হোস্ট→হোস্ট কপি — তাতে লাগে {ms:.2f} ms ({gbs:.1f} GB/s)। প্রতি batch-এ পিন করলে প্রতি batch-এ এই খরচ "
              "প্রশিক্ষণের পথেই যোগ হয়; GPU-তে লাভটা (পেজেবল কপির তুলনায় কত কম সময়) এখানে মাপা যায় না।",
        "en": "No GPU here, so nothing can be pinned; the cost side was measured: the copy pin_memory() makes at the least — a "
              "host→host copy of {mb:.1f} MB — takes {ms:.2f} ms ({gbs:.1f} GB/s). Pinning every batch adds this cost to the "
              "training loop's path for every batch; the saving on a GPU (how much faster than a pageable copy) cannot be measured here.",
    },
    "transfer.verdict_pin_loses": {
        "bn": "{mb:.1f} MB-এর batch: সাধারণ .to() {pageable:.2f} ms; প্রতি batch-এ pin_memory() তারপর non_blocking কপি "
              "{both:.2f} ms — পিন করা একা {pin:.2f} ms খায়, অথচ আগে থেকে পিন করা batch-এর কপিতে বাঁচে মাত্র {saved:.2f} ms। "
              "তাই এখানে প্রতি batch-এ পিন করা লাভের চেয়ে বেশি খরচ করে; পিন করো প্রশিক্ষণের পথের বাইরে (DataLoader-এর pin_memory=True) বা একবার।",
        "en": "{mb:.1f} MB batch: a plain .to() {pageable:.2f} ms; pin_memory() then a non_blocking copy every batch "
              "{both:.2f} ms — pinning alone costs {pin:.2f} ms, while copying an already pinned batch saves only {saved:.2f} ms. "
              "So here pinning every batch costs more than it saves; pin off the loop's path (DataLoader pin_memory=True) or once.",
    },
    "transfer.verdict_pin_wins": {
        "bn": "{mb:.1f} MB-এর batch: সাধারণ .to() {pageable:.2f} ms; প্রতি batch-এ pin_memory() তারপর non_blocking কপি "
              "{both:.2f} ms (পিন করা একা {pin:.2f} ms)। এই GPU-তে প্রতি batch-এ পিন করেও লাভ হলো; পিন করা batch-এর কপি নিজে "
              "{pinned:.2f} ms, অর্থাৎ পিন প্রশিক্ষণের পথের বাইরে সরালে লাভ আরও বেশি।",
        "en": "{mb:.1f} MB batch: a plain .to() {pageable:.2f} ms; pin_memory() then a non_blocking copy every batch "
              "{both:.2f} ms (pinning alone {pin:.2f} ms). On this GPU pinning every batch still paid; the copy of a pinned "
              "batch itself takes {pinned:.2f} ms, so moving the pinning off the loop's path gains more.",
    },
    "transfer.verdict_pin_noisy": {
        "bn": "{mb:.1f} MB-এর batch পিন করার খরচ মাপার সময় মেশিন ব্যস্ত ছিল ({ms:.2f} ms, গোলমেলে মাপ), তাই পিন করা লাভ না ক্ষতি — তা এই মাপ থেকে বলা যায় না। আবার চালাও।",
        "en": "The machine was busy while the cost of pinning a {mb:.1f} MB batch was measured ({ms:.2f} ms, a noisy measurement), so whether pinning pays cannot be said from it. Run again.",
    },
    "transfer.step_host_copy": {"bn": "হোস্ট→হোস্ট কপি (pin_memory()-র ন্যূনতম কাজ)", "en": "host→host copy (the least pin_memory() does)"},
    "transfer.step_pageable": {"bn": "পেজেবল মেমরি থেকে .to()", "en": "pageable .to()"},
    "transfer.step_pin_only": {"bn": "শুধু pin_memory()", "en": "pin_memory() alone"},
    "transfer.step_pin_and_copy": {"bn": "প্রতি batch-এ pin_memory() + .to(non_blocking)", "en": "pin_memory() + .to(non_blocking) every batch"},
    "transfer.step_pinned_copy": {"bn": "আগে থেকে পিন করা batch-এর .to(non_blocking)", "en": "already pinned .to(non_blocking)"},
    "transfer.lane_copy": {"bn": "কপি", "en": "copy"},
    "transfer.time_ms": {"bn": "সময় (মিলিসেকেন্ড)", "en": "time (ms)"},
    "transfer.timeline_serial": {
        "bn": "এক স্ট্রিমে: কপি আর গণনা পালা করে — মোট {ms:.1f} ms (মডেল, মাপা নয়)",
        "en": "one stream: copy and compute take turns — {ms:.1f} ms in all (model, not measured)",
    },
    "transfer.timeline_overlapped": {
        "bn": "দ্বিতীয় স্ট্রিমে কপি: পরের batch-এর কপি এই batch-এর গণনার পাশাপাশি — মোট {ms:.1f} ms (মডেল, মাপা নয়)",
        "en": "copies on a second stream: the next batch's copy beside this batch's compute — {ms:.1f} ms in all (model, not measured)",
    },
    # lesson 02 notebook: verdict rules (verdicts.py)
    "lesson02.faster": {"bn": "{ratio:.2f} গুণ দ্রুত", "en": "{ratio:.2f}× faster"},
    "lesson02.slower": {"bn": "{ratio:.2f} গুণ ধীর", "en": "{ratio:.2f}× slower"},
    "lesson02.same_speed": {"bn": "প্রায় একই গতি ({ratio:.2f}×)", "en": "about the same speed ({ratio:.2f}×)"},
    "lesson02.bottleneck_data": {
        "bn": "num_workers=0-তে প্রশিক্ষণের {share0:.0%} সময় ডেটার অপেক্ষায়: ইনপুট পাইপলাইনই বোতলের গলা (bottleneck)। "
              "কর্মী দিয়ে সবচেয়ে ভালো হলো num_workers={best} — ডেটার অপেক্ষা {share:.0%}-এ নামল, গতি num_workers=0-এর তুলনায়: {speed}।",
        "en": "With num_workers=0 training spends {share0:.0%} of its time waiting for data: the input pipeline is the bottleneck. "
              "The best with workers was num_workers={best} — waiting fell to {share:.0%}, speed against num_workers=0: {speed}.",
    },
    "lesson02.workers_took_cores": {
        "bn": "তবু কর্মী দিয়ে প্রশিক্ষণ num_workers=0-এর তুলনায় {speed}: ধাপ নিজেই {step0_ms:.2f} ms থেকে বেড়ে {step_ms:.2f} ms হলো — "
              "{best}টি কর্মী প্রসেস প্রশিক্ষণের ধাপের সাথে একই {cores}টি কোরে চলেছে, তাই অপেক্ষা কমার দাম দিতে হলো ধীর ধাপ দিয়ে। "
              "খালি কোর থাকলে (বা GPU-তে প্রশিক্ষণ হলে) কর্মীরা সত্যিই অপেক্ষা লুকায়।",
        "en": "Yet training with workers, against num_workers=0, ran {speed}: the step itself grew from {step0_ms:.2f} ms to {step_ms:.2f} ms — "
              "the {best} worker processes ran on the same {cores} cores as the training step, so less waiting was paid for with a slower step. "
              "With idle cores (or training on a GPU) workers really do hide the waiting.",
    },
    "lesson02.workers_cost_more": {
        "bn": "তবু কর্মী দিয়ে প্রশিক্ষণ num_workers=0-এর তুলনায় {speed}, যদিও ধাপ নিজে প্রায় একই রইল ({step0_ms:.2f} → {step_ms:.2f} ms): "
              "প্রসেসের মধ্যে batch পাঠানোর খরচ কর্মীদের বাঁচানো সময়ের চেয়ে বেশি।",
        "en": "Yet training with workers, against num_workers=0, ran {speed}, though the step itself stayed about the same ({step0_ms:.2f} → {step_ms:.2f} ms): "
              "sending batches between processes cost more than the workers saved.",
    },
    "lesson02.bottleneck_step": {
        "bn": "num_workers=0-তেও ডেটার অপেক্ষা সময়ের {share0:.0%}, অর্ধেকের কম: এখানে ধাপ নিজেই বেশি সময় নেয়, ইনপুট পাইপলাইন বোতলের গলা নয়। "
              "কর্মী দিয়ে সবচেয়ে ভালো num_workers={best}, num_workers=0-এর তুলনায়: {speed}।",
        "en": "Even with num_workers=0 waiting for data is {share0:.0%} of the time, under half: the step itself takes longer here, the input "
              "pipeline is not the bottleneck. Best with workers: num_workers={best}, against num_workers=0: {speed}.",
    },
    "lesson02.pipeline_noisy": {
        "bn": "num_workers=0 বা num_workers={best}-এর মাপের সময় মেশিন ব্যস্ত ছিল (গোলমেলে মাপ), তাই কোনটা বোতলের গলা আর কর্মী কেন সাহায্য করল বা করল না — তা এই মাপ থেকে বলা যায় না। অন্য ভারী কাজ থামিয়ে সেলটি আবার চালাও।",
        "en": "The machine was busy while num_workers=0 or num_workers={best} was measured (noisy measurements), so these timings cannot say what the bottleneck is or why workers helped or not. Stop other heavy work and run the cell again.",
    },
    "lesson02.workers_noisy": {
        "bn": "num_workers=0 বা {workers}টি কর্মীর মাপ গোলমেলে (মেশিন ব্যস্ত ছিল): {workers}টি কর্মী, num_workers=0-এর তুলনায় {speed} — এর কারণ এখান থেকে বলা যায় না। গোলমেলে সারিগুলো ঠিক ওপরের সেল একবার আবার মেপেছে; তবু গোলমেলে থাকলে অন্য ভারী প্রোগ্রাম বন্ধ করে দুটি সেলই আবার চালাও।",
        "en": "The num_workers=0 or {workers}-worker measurement was noisy (the machine was busy): {workers} workers against num_workers=0, {speed} — no cause can be given from it. The cell just above measured the noisy rows once more; if they are still noisy, stop other heavy programs and run both cells again.",
    },
    "lesson02.workers_helped": {
        "bn": "কর্মী প্রসেস এখানে লাভ দিয়েছে (num_workers=0-এর তুলনায় {speed}, শান্ত মাপ): ছবি বদলানোর কাজ প্রশিক্ষণের প্রসেস থেকে সরে গেছে আর ফাঁকা কোর কাজে লেগেছে।",
        "en": "Worker processes helped here (against num_workers=0: {speed}, quiet measurements): the augmentation moved out of the training process onto otherwise idle cores.",
    },
    "lesson02.workers_hurt": {
        "bn": "কর্মী প্রসেস এখানে ধীর করেছে (num_workers=0-এর তুলনায় {speed}, শান্ত মাপ): প্রতি batch-এর কাজ কম, কর্মী থেকে batch পাঠানোর খরচ আছে, আর ফাঁকা কোর কম।",
        "en": "Worker processes made it slower here (against num_workers=0: {speed}, quiet measurements): there is little work per batch, sending batches from workers costs time, and there are few idle cores.",
    },
    "lesson02.workers_same": {
        "bn": "কর্মী দিয়ে গতি num_workers=0-এর প্রায় সমান ({speed}, শান্ত মাপ): প্রতি batch-এর কাজ এত কম যে সরিয়ে নিয়ে যা বাঁচে, batch পাঠাতে প্রায় ততটাই খরচ হয়।",
        "en": "Workers left the speed about that of num_workers=0 ({speed}, quiet measurements): there is so little work per batch that moving it saves about what sending the batch costs.",
    },
    "lesson02.pin_gap_noisy": {
        "bn": "num_workers={workers}: pin_memory চালু, বন্ধের তুলনায় {speed}, কিন্তু দুটির অন্তত একটির মাপ গোলমেলে (মেশিন ব্যস্ত ছিল), তাই এই পার্থক্যের কোনো মানে নেই। আবার চালিয়ে দেখো।",
        "en": "num_workers={workers}: pin_memory on, against off: {speed}, but at least one of the two was measured on a busy machine, so the gap means nothing. Run again and compare.",
    },
    "lesson02.pin_gap_cpu_noise": {
        "bn": "num_workers={workers}: pin_memory চালু, বন্ধের তুলনায় {speed}, পার্থক্য {gap:.0%} (দুটিই শান্ত মাপ)। GPU ছাড়া pin_memory কিছুই করে না (PyTorch এটি উপেক্ষা করে), তাই এই পার্থক্য একবার চালানোর ওঠানামা (noise), pin_memory-র প্রভাব নয়।",
        "en": "num_workers={workers}: pin_memory on, against off: {speed}, a {gap:.0%} gap (both quiet measurements). Without a GPU pin_memory does nothing (PyTorch ignores it), so this gap is the noise of a single pass, not pin_memory's effect.",
    },
    "lesson02.pin_gap_cpu_large": {
        "bn": "num_workers={workers}: pin_memory চালু বনাম বন্ধ — {speed}, পার্থক্য {gap:.0%}, মেশিন শান্ত থাকা সত্ত্বেও {limit:.0%}-এর বেশি। তবু এটা pin_memory নয়: GPU ছাড়া PyTorch pin_memory উপেক্ষা করে, দুটি চালানো আসলে একই কাজ। একবার চালানো (কর্মী চালু হওয়া, ক্যাশ, কোনটা আগে চলল) এতটা নড়তে পারে — আবার চালাও; সত্যিকারের প্রভাব হলে পার্থক্যটা থেকে যেত।",
        "en": "num_workers={workers}: pin_memory on vs off — {speed}, a {gap:.0%} gap, above {limit:.0%} on a quiet machine. Still, it is not pin_memory: without a GPU PyTorch ignores it, so both runs did the same work. A single pass (workers starting, caches, which ran first) can move this much — run again; a real effect would stay.",
    },
    "lesson02.pin_gap_gpu": {
        "bn": "num_workers={workers}: pin_memory চালু বনাম বন্ধ — {speed} (মেশিন শান্ত)। এখানে GPU আছে, তাই DataLoader পরের batch পিন করা মেমরিতে রাখে।",
        "en": "num_workers={workers}: pin_memory on vs off — {speed} (quiet machine). There is a GPU here, so the DataLoader keeps the next batch in pinned memory.",
    },
    "lesson02.reconcile_agree": {
        "bn": "আগের মাপ আর প্রোফাইলার একই কথা বলে: num_workers={workers} বনাম 0 — প্রোফাইলার ছাড়া {before}, প্রোফাইলারসহ {profiled}। (প্রোফাইলারসহ num_workers=0-এর লুপ নিজে: {overhead0} — প্রোফাইলার প্রতিটি অপারেশন লিখে রাখে, তাই গতির জন্য প্রোফাইলার ছাড়া মাপটাই ধরো।)",
        "en": "The timed run and the profiler agree: num_workers={workers} vs 0 — {before} without the profiler, {profiled} under it. (Under the profiler the num_workers=0 loop itself ran {overhead0}: the profiler records every op, so take speeds from the run without it.)",
    },
    "lesson02.reconcile_overhead": {
        "bn": "আগের মাপ আর প্রোফাইলার একমত নয়: num_workers={workers} বনাম 0 — প্রোফাইলার ছাড়া {before}, প্রোফাইলারসহ {profiled}; দুটি মাপই শান্ত মেশিনে। কারণ প্রোফাইলার নিজে: সে প্রশিক্ষণের প্রসেসের প্রতিটি অপারেশন লিখে রাখে, তাতে লুপ বদলে যায় (num_workers=0: {overhead0}, num_workers={workers}: {overhead_w}), আর কর্মীরা সেই একই কোরে চলে। তাই গতির প্রশ্নে প্রোফাইলার ছাড়া মাপটাই বিশ্বাস করো; প্রোফাইলার বলে কী চলেছে আর কতবার (কোন প্রসেসে নমুনা লোড হলো, কতগুলো অপারেশন)।",
        "en": "The timed run and the profiler disagree: num_workers={workers} vs 0 — {before} without the profiler, {profiled} under it; both on a quiet machine. The cause is the profiler itself: it records every op of the training process, which changes the loop (num_workers=0: {overhead0}, num_workers={workers}: {overhead_w}), and the workers run on the same cores. So for speed trust the run without the profiler; the profiler tells what ran and how often (which process loaded the samples, how many ops).",
    },
    "lesson02.reconcile_noisy": {
        "bn": "আগের মাপ (প্রোফাইলার ছাড়া: num_workers={workers} {before}) আর প্রোফাইলারসহ মাপ ({profiled}) — অন্তত একটি ব্যস্ত মেশিনে নেওয়া (গোলমেলে), তাই দুটি মেলে কি না, বা না মিললে কেন, তা বলা যায় না। প্রোফাইলের গোনা সংখ্যাগুলো (কতবার, কোন প্রসেসে) তবু ঠিক; সময়ের জন্য শান্ত মেশিনে আবার চালাও।",
        "en": "The timed run (without the profiler: num_workers={workers} {before}) and the profiled run ({profiled}) — at least one was taken on a busy machine (noisy), so whether they agree, or why not, cannot be said. The profile's counts (how often, in which process) still hold; for times run again on a quiet machine.",
    },
    # lesson 02 notebook: the sentences its # VERDICT cells print (verdicts.py)
    "lesson02.v_launch": {"bn": "এখানে মাপা ({device}): কল ফিরেছে {launch_ms:.3f} ms-এ, ফল তৈরি হয়েছে {total_ms:.3f} ms-এ।",
                          "en": "Measured here ({device}): the call returned after {launch_ms:.3f} ms, the result was ready after {total_ms:.3f} ms."},
    "lesson02.v_launch_async": {"bn": "কল ফল তৈরির অনেক আগে ফিরেছে: কাজটি অ্যাসিঙ্ক্রোনাস, CPU এর মধ্যে অন্য কাজ পাঠাতে পারে।",
                                "en": "The call returned long before the result was ready: the work is asynchronous, and the CPU can queue more work meanwhile."},
    "lesson02.v_launch_sync": {"bn": "কল আর ফল প্রায় একসাথে: এই ডিভাইস কলের ভেতরেই কাজটা শেষ করে (CPU-তে এমনই হয়)।",
                               "en": "The call and the result came almost together: this device finishes the work inside the call (as a CPU does)."},
    "lesson02.v_item": {
        "bn": "এখানে মাপা ({device}): প্রতি ধাপে .item() ডাকলে {every:.3f} ms/ধাপ, শেষে একবার ডাকলে {once:.3f} ms/ধাপ — প্রতি ধাপে .item(), শেষে একবারের তুলনায় {speed}।",
        "en": "Measured here ({device}): .item() every step {every:.3f} ms/step, once at the end {once:.3f} ms/step — .item() every step, against once at the end: {speed}.",
    },
    "lesson02.v_item_cpu": {
        "bn": "CPU-তে .item()-এর জন্য অপেক্ষার কিছু নেই (কাজ কলের ভেতরেই শেষ হয়), তাই এই পার্থক্য .item()-এর খরচ নয়: একই ধাপ দুবার মাপলেও এতটা নড়তে পারে — আবার চালিয়ে মিলিয়ে দেখো।",
        "en": "On a CPU .item() has nothing to wait for (the work is done inside the call), so this difference is not .item()'s cost: the same steps measured twice can move this much — rerun and compare.",
    },
    "lesson02.v_item_costs": {
        "bn": "প্রতি ধাপে .item() এখানে স্পষ্টভাবে ধীর: প্রতিবার CPU অপেক্ষা করে GPU-র কাজ শেষ হওয়া পর্যন্ত, আর GPU অপেক্ষা করে পরের কাজের জন্য।",
        "en": ".item() every step is clearly slower here: each time the CPU waits for the GPU to finish, and the GPU waits for the next work.",
    },
    "lesson02.v_item_same": {
        "bn": "পার্থক্য মাপের ওঠানামার মধ্যে: এই ডিভাইস প্রতিটি অপারেশন শেষ করেই ফেরে, তাই .item()-এর জন্য আলাদা অপেক্ষা নেই।",
        "en": "The difference is within the noise: this device finishes each operation before returning, so .item() has nothing extra to wait for.",
    },
    "lesson02.right": {"bn": "ঠিক", "en": "right"},
    "lesson02.wrong": {"bn": "ভুল", "en": "wrong"},
    "lesson02.v_early_gpu": {
        "bn": "{gpu}-এ: সিঙ্ক্রোনাইজ করার আগে পড়া মান {early} — {early_word}; সিঙ্ক্রোনাইজ করার পরে {late} — {late_word} (হওয়ার কথা {expected})।",
        "en": "On {gpu}: read before synchronizing {early} — {early_word}; after synchronizing {late} — {late_word} (expected {expected}).",
    },
    "lesson02.v_early_sim": {
        "bn": "সিমুলেশন (GPU নয়, একটি থ্রেড কপির কাজ করছে): সাথে সাথে পড়া মান {early} — {early_word}; অপেক্ষার পরে {late} — {late_word} (হওয়ার কথা {expected})।",
        "en": "Simulation (not a GPU; a thread plays the copy): read at once {early} — {early_word}; after waiting {late} — {late_word} (expected {expected}).",
    },
    "lesson02.v_overlap_model": {
        "bn": "মডেল (মাপা নয়): কপি {copy_ms:.1f} ms, গণনা {compute_ms:.1f} ms, {batches}টি batch → এক স্ট্রিমে {serial_ms:.1f} ms, পাশাপাশি {overlapped_ms:.1f} ms, সর্বোচ্চ {speedup:.2f} গুণ। লাভ সবচেয়ে বেশি যখন কপি আর গণনার সময় প্রায় সমান।",
        "en": "Model (not measured): copy {copy_ms:.1f} ms, compute {compute_ms:.1f} ms, {batches} batches → one stream {serial_ms:.1f} ms, overlapped {overlapped_ms:.1f} ms, at most {speedup:.2f}×. The gain is largest when copy and compute take about as long.",
    },
    "lesson02.v_overlap_gpu": {
        "bn": "{gpu}-এ {batches}টি batch: এক স্ট্রিমে {serial_ms:.1f} ms, দ্বিতীয় স্ট্রিমে কপিসহ {overlapped_ms:.1f} ms — দ্বিতীয় স্ট্রিম, এক স্ট্রিমের তুলনায় {speed}।",
        "en": "On {gpu}, {batches} batches: one stream {serial_ms:.1f} ms, copies on a second stream {overlapped_ms:.1f} ms — the second stream, against one stream: {speed}.",
    },
    "lesson02.v_loader": {
        "bn": "এখানে মাপা: num_workers=0-তে {base:.0f} নমুনা/সেকেন্ড; কর্মী দিয়ে সবচেয়ে ভালো {workers}টি কর্মীতে: {fastest:.0f} নমুনা/সেকেন্ড, কর্মী চালু হতে লেগেছে {startup:.2f} সেকেন্ড। এই মেশিনে {cores}টি কোর।",
        "en": "Measured here: num_workers=0 gives {base:.0f} samples/s; the best with workers, {workers} workers: {fastest:.0f} samples/s, and starting the workers took {startup:.2f} s. This machine has {cores} cores.",
    },
    "lesson02.v_pipeline_row": {
        "bn": "num_workers={workers}: প্রতি ধাপে গড়ে ডেটার অপেক্ষা {wait_ms:.2f} ms, ধাপ নিজে {step_ms:.2f} ms — সময়ের {share:.0%} যায় ডেটার অপেক্ষায়; {steps_per_s:.0f} ধাপ/সেকেন্ড (কর্মী চালু হতে {startup:.2f} s, আলাদা)।",
        "en": "num_workers={workers}: per step on average {wait_ms:.2f} ms waiting for data, {step_ms:.2f} ms for the step itself — {share:.0%} of the time goes to waiting for data; {steps_per_s:.0f} steps/s (workers starting: {startup:.2f} s, apart).",
    },
    "lesson02.v_profiler_off": {"bn": "প্রোফাইলার চলেনি (সেলটি বন্ধ), তাই মেলানোর কিছু নেই।",
                                "en": "The profiler did not run (the cell is off), so there is nothing to compare."},
    "lesson02.v_accuracy": {"bn": "এখানে মাপা ({device}): {epochs}টি ইপকে সঠিকতা {accuracy:.1%} (আন্দাজে উত্তর দিলে প্রায় 10%)।",
                            "en": "Measured here ({device}): accuracy after {epochs} epochs {accuracy:.1%} (guessing gives about 10%)."},
    "lesson02.v_epochs": {
        "bn": "{device}: প্রথম ইপক (ওয়ার্ম-আপ) {first:.2f} সেকেন্ড; তার পরের ইপকগুলোর গড় {mean:.2f} সেকেন্ড — গড়ে ওয়ার্ম-আপ নেই।",
        "en": "{device}: first epoch (warm-up) {first:.2f} s; the later epochs average {mean:.2f} s — the warm-up is left out of the mean.",
    },
    "lesson02.v_devices": {
        "bn": "এখানে মাপা: একই লুপে প্রতি ইপক (ওয়ার্ম-আপ বাদে) {cpu:.2f} সেকেন্ড CPU-তে, {other:.2f} সেকেন্ড {device}-এ — {device}, CPU-র তুলনায় {speed}।",
        "en": "Measured here: the same loop takes {cpu:.2f} s per epoch (warm-up left out) on the CPU and {other:.2f} s on {device} — {device} against the CPU: {speed}.",
    },
    # exercise 02, task 4
}
