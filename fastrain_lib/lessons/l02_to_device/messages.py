"""Messages of lesson 02 (.to(device)): its transfer.py, input_pipeline.py, panel.py, checks.py and diagnose.py."""

MESSAGES = {
    # transfer.py, input_pipeline.py
    "transfer.needs_gpu": {
        "bn": "হোস্ট→ডিভাইস কপি মাপতে GPU লাগে; এই মেশিনে শুধু CPU আছে, তাই এখানে কিছু সরানোর নেই। ডেটাশিটের বা reference/-এর সংখ্যা দেখো।",
        "en": "Measuring host→device copies needs a GPU; this machine has only a CPU, so there is nothing to move here. See the datasheet or reference/ figures.",
    },
    "transfer.no_pinning": {
        "bn": "পিন করা মেমরি (pinned memory) বানাতে GPU-র ড্রাইভার লাগে; এই মেশিনে CUDA নেই। pinned=False দিয়ে চালাও।",
        "en": "Pinned memory needs a GPU driver; this machine has no CUDA. Run with pinned=False.",
    },
    "transfer.progress_epoch": {"bn": "ইপক {epoch}/{epochs} ({device})", "en": "epoch {epoch}/{epochs} ({device})"},
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
        "bn": "{device}, batch {batch_size}, কর্মী {num_workers}, pin {pin}: {rate:.0f} নমুনা/সেকেন্ড",
        "en": "{device}, batch {batch_size}, workers {num_workers}, pin {pin}: {rate:.0f} samples/s",
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
    "lesson02.check.diag.not_faster": {
        "bn": "প্রোফাইলে তিনটি সমস্যাই আর নেই, কিন্তু মাপা steps/s বাড়েনি যথেষ্ট: ধীর লুপের {speedup:.2f} গুণ (অন্তত {need:.2f} গুণ "
              "দরকার; প্রতি রাউন্ডে: {rounds})। মেশিন শান্ত ছিল, তাই মাপটি বিশ্বাসযোগ্য: num_workers কত দিয়েছ, আর লুপে "
              "নতুন কোনো ধীর কাজ ঢুকেছে কিনা দেখো।",
        "en": "None of the three problems is left in the profile, but the measured steps/s did not grow enough: {speedup:.2f}× "
              "the slow loop (at least {need:.2f}× needed; per round: {rounds}). The machine was quiet, so the timing "
              "stands: check your num_workers, and whether some new slow work entered the loop.",
    },
    "lesson02.check.diag.noisy": {
        "bn": "প্রোফাইলে তিনটি সমস্যাই আর নেই ✔, কিন্তু গতি মাপার সময় মেশিন ব্যস্ত ছিল, তাই মাপা {speedup:.2f} গুণ (দরকার "
              "{need:.2f}) দিয়ে কিছুই বলা যায় না — এটা ভুল নয়, অনিশ্চিত। অন্য ভারী কাজ থামিয়ে যাচাই সেলটি আবার চালাও।",
        "en": "None of the three problems is left in the profile ✔, but the machine was busy while the speed was measured, so "
              "the measured {speedup:.2f}× (needed {need:.2f}) decides nothing — not wrong, just unknown. Stop other heavy "
              "work and run the check cell again.",
    },
    "lesson02.check.diag.correct": {
        "bn": "ঠিক আছে: একই ওজন আর একই সংখ্যা, প্রোফাইলে তিনটি সমস্যার কোনোটি নেই, আর স্থির অবস্থায় steps/s ধীর লুপের {speedup:.2f} গুণ।",
        "en": "Correct: the same weights and numbers, none of the three problems in the profile, and {speedup:.2f}× the slow "
              "loop's steady steps/s.",
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
    # lesson 02 notebook: new sections
    "lesson02.bottleneck_data": {
        "bn": "num_workers=0-তে প্রশিক্ষণ বেশির ভাগ সময় ডেটার অপেক্ষায়: ইনপুট পাইপলাইনই বোতলের গলা (bottleneck)। "
              "কর্মী দিয়ে সবচেয়ে ভালো হলো num_workers={best} — ডেটার অপেক্ষা {share:.0%}-এ নামল, গতি {ratio:.2f} গুণ।",
        "en": "With num_workers=0 training spends most of its time waiting for data: the input pipeline is the bottleneck. "
              "The best with workers was num_workers={best} — waiting fell to {share:.0%}, speed {ratio:.2f}×.",
    },
    "lesson02.workers_took_cores": {
        "bn": "তবু কর্মী দিয়ে প্রশিক্ষণ ধীর হলো ({ratio:.2f} গুণ): ধাপ নিজেই {step0_ms:.2f} ms থেকে বেড়ে {step_ms:.2f} ms হলো — "
              "{best}টি কর্মী প্রসেস প্রশিক্ষণের ধাপের সাথে একই {cores}টি কোরে চলেছে, তাই অপেক্ষা কমার দাম দিতে হলো ধীর ধাপ দিয়ে। "
              "খালি কোর থাকলে (বা GPU-তে প্রশিক্ষণ হলে) কর্মীরা সত্যিই অপেক্ষা লুকায়।",
        "en": "Yet workers made training slower ({ratio:.2f}×): the step itself grew from {step0_ms:.2f} ms to {step_ms:.2f} ms — "
              "the {best} worker processes ran on the same {cores} cores as the training step, so less waiting was paid for with a slower step. "
              "With idle cores (or training on a GPU) workers really do hide the waiting.",
    },
    "lesson02.workers_cost_more": {
        "bn": "তবু কর্মী দিয়ে প্রশিক্ষণ ধীর হলো ({ratio:.2f} গুণ), যদিও ধাপ নিজে প্রায় একই রইল ({step0_ms:.2f} → {step_ms:.2f} ms): "
              "প্রসেসের মধ্যে ব্যাচ পাঠানোর খরচ কর্মীদের বাঁচানো সময়ের চেয়ে বেশি।",
        "en": "Yet workers made training slower ({ratio:.2f}×), though the step itself stayed about the same ({step0_ms:.2f} → {step_ms:.2f} ms): "
              "sending batches between processes cost more than the workers saved.",
    },
    "lesson02.bottleneck_step": {
        "bn": "num_workers=0-তেও ডেটার অপেক্ষা সময়ের অর্ধেকের কম: এখানে ধাপ নিজেই বেশি সময় নেয়, ইনপুট পাইপলাইন বোতলের গলা নয়। "
              "কর্মী দিয়ে সবচেয়ে ভালো num_workers={best}: গতি {ratio:.2f} গুণ।",
        "en": "Even with num_workers=0 waiting for data is under half the time: the step itself takes longer here, the input "
              "pipeline is not the bottleneck. Best with workers: num_workers={best}, speed {ratio:.2f}×.",
    },
    # exercise 02, task 4
}
