"""Messages shared by all exercise checks (fastrain_lib.checks)."""

MESSAGES = {
    "checks.correct": {"bn": "ঠিক হয়েছে! চমৎকার।", "en": "Correct! Well done."},
    "checks.not_done": {
        "bn": "এখনও উত্তর পাওয়া যায়নি: TODO-র জায়গায় তোমার কোড লেখো, তারপর এই সেল আবার চালাও।",
        "en": "No answer yet: write your code where the TODO is, then run this cell again.",
    },
    "checks.crashed": {
        "bn": "তোমার কোড চালাতে গিয়ে ত্রুটি হয়েছে: {error}। ত্রুটির বার্তাটি পড়ে কোড ঠিক করো।",
        "en": "Your code raised an error: {error}. Read the message and fix the code.",
    },
}

MESSAGES.update({
    "checks.unexpected": {
        "bn": "যাচাই-কোড তোমার উত্তরটি বুঝতে পারেনি ({error})। ফেরত দেওয়া মানের ধরন (type) কাজের বিবরণের সাথে মিলিয়ে দেখো।",
        "en": "The check could not make sense of your answer ({error}). Compare the type of what you return with the task.",
    },
    "checks.not_callable": {
        "bn": "এখানে একটি ফাংশন দিতে হবে, কিন্তু পাওয়া গেল {kind}। ফাংশনের নামটি দাও (বন্ধনী () ছাড়া)।",
        "en": "A function is needed here, but this is a {kind}. Pass the function's name (without parentheses).",
    },
    # lesson 05
    "checks.l05.timeout": {
        "bn": "{world}টি প্রসেসে তোমার কোড {seconds} সেকেন্ডেও শেষ হয়নি: সম্ভবত কোনো র‍্যাঙ্ক এমন all_reduce/barrier-এ অপেক্ষা করছে যা অন্যরা ডাকেনি (যেমন `if rank == 0:`-এর ভেতরে)। প্রসেসগুলো বন্ধ করা হয়েছে।",
        "en": "With {world} processes your code did not finish within {seconds} s: probably one rank waits in an all_reduce/barrier the others never call (e.g. inside `if rank == 0:`). The processes were stopped.",
    },
    "checks.l05.idle_mutated": {
        "bn": "তোমার ফাংশন ইনপুটের events তালিকাটি বদলে দিয়েছে (যেমন জায়গায় sort করা বা কোনো মান বদলানো)। টাইমলাইন অন্যরাও ব্যবহার করে: sorted(...) দিয়ে নতুন তালিকা বানাও, মূলটা যেমন আছে রাখো।",
        "en": "Your function changed the events list it was given (e.g. sorted it in place or changed a value). Others use that timeline too: build a new list with sorted(...) and leave the original as it is.",
    },
    "checks.l05.idle_not_only_work": {
        "bn": "তুমি সব event গুনেছ, কিন্তু কাজ শুধু kind \"F\" আর \"B\"; মাপা টাইমলাইনে অন্য event-ও থাকে (যেমন \"A\": গ্রেডিয়েন্টের all-reduce)। আগে শুধু F আর B বেছে নাও।",
        "en": "You counted every event, but only kind \"F\" and \"B\" are pipeline work; measured timelines hold others too (e.g. \"A\": the gradient all-reduce). Keep only F and B first.",
    },
    "checks.l05.idle_span_from_zero": {
        "bn": "span হিসাবে তুমি শুধু শেষ কাজের end নিয়েছ, যেন ঘড়ি 0 থেকে শুরু। মাপা ঘড়ি 0 থেকে শুরু হয় না: span = শেষ কাজের end − প্রথম কাজের start।",
        "en": "You took the last end as the span, as if the clock started at 0. Measured clocks do not: span = last end − first start.",
    },
    "checks.l05.avg_grad_lost": {
        "bn": "কাজ শেষে কোনো প্যারামিটারের p.grad নেই বা তার আকার বদলে গেছে। p.grad-এর জায়গাতেই গড় বসাও।",
        "en": "Afterwards some parameter has no p.grad, or its shape changed. Put the mean into p.grad itself.",
    },
    "checks.l05.avg_dtype": {
        "bn": "গ্রেডিয়েন্টের dtype বদলে গেছে ({want} থেকে {got})। গড় নেওয়ার সময় dtype যেমন ছিল তেমন রাখো।",
        "en": "The gradients' dtype changed ({want} to {got}). Keep the dtype while averaging.",
    },
    "checks.l05.avg_weights_changed": {
        "bn": "তোমার ফাংশন মডেলের ওজন (p নিজে) বদলে দিয়েছে; বদলানোর কথা শুধু p.grad-এর।",
        "en": "Your function changed the model's weights (p itself); only p.grad should change.",
    },
    "checks.l05.avg_factor": {
        "bn": "{world}টি প্রসেসে তোমার গড় ঠিক মানের ×{factor} গুণ: যোগফলকে world_size দিয়ে ভাগ করো (কোনো সংখ্যা নিজে লিখে দিও না; প্রসেসের সংখ্যা world_size বা dist.get_world_size())।",
        "en": "With {world} processes your average is off by ×{factor}: divide the sum by world_size (do not write a fixed number; the process count is world_size or dist.get_world_size()).",
    },
    "checks.l05.avg_ok": {
        "bn": "ঠিক হয়েছে! {worlds}টি আসল প্রসেসে প্রত্যেকের কাছে এখন সবার গ্রেডিয়েন্টের গড়, ওজন অক্ষত।",
        "en": "Correct! With {worlds} real processes every rank now holds the mean of all gradients, weights untouched.",
    },
    "checks.l05.ddp_sampler_count": {
        "bn": "{world}টি প্রসেসে প্রতিটি র‍্যাঙ্কের প্রতি ইপকে {want}টি নমুনা পড়ার কথা (মোট {n}টি ভাগ করে, ceil(n / world_size)), পড়েছে {got}টি। DistributedSampler(dataset, num_replicas=world_size, rank=rank, ...) দাও — সংখ্যা নিজে লিখে দিও না।",
        "en": "With {world} processes each rank should read {want} samples per epoch ({n} split, ceil(n / world_size)); it read {got}. Use DistributedSampler(dataset, num_replicas=world_size, rank=rank, ...) — no fixed numbers.",
    },
    "checks.l05.ddp_bad_checkpoint": {
        "bn": "চেকপয়েন্ট ফাইলটি মডেলের state_dict নয় ({error})। rank 0 লিখবে torch.save(model.state_dict(), checkpoint_path)।",
        "en": "The checkpoint file is not the model's state_dict ({error}). Rank 0 writes torch.save(model.state_dict(), checkpoint_path).",
    },
    "checks.l05.ddp_module_prefix": {
        "bn": "চেকপয়েন্টের প্রতিটি নামের আগে \"module.\": তুমি DDP-মোড়ানো মডেলের state_dict সেভ করেছ। সাধারণ মডেলে (DDP ছাড়া) এটা লোড হবে না। model.state_dict() (মোড়ানোর আগের মডেল) বা ddp_model.module.state_dict() সেভ করো।",
        "en": "Every name in the checkpoint starts with \"module.\": you saved the DDP wrapper's state_dict, which a plain model cannot load. Save model.state_dict() (the unwrapped model) or ddp_model.module.state_dict().",
    },
    "checks.l05.ddp_saved_untrained": {
        "bn": "চেকপয়েন্টে প্রশিক্ষণের আগের ওজন: torch.save প্রশিক্ষণ লুপের আগে চলেছে। লুপ শেষ হওয়ার পরে সেভ করো।",
        "en": "The checkpoint holds the weights from before training: torch.save ran before the loop. Save after the loop ends.",
    },
    "checks.l05.ddp_checkpoint_stale": {
        "bn": "চেকপয়েন্টের ওজন প্রশিক্ষণ শেষের ওজনের সাথে মেলে না (মাঝপথে সেভ হয়েছে?)। সব ইপক শেষ হলে একবার সেভ করো।",
        "en": "The checkpoint's weights differ from the trained ones (saved midway?). Save once, after all epochs.",
    },
    "checks.l05.ddp_ok": {
        "bn": "ঠিক হয়েছে! {worlds}টি আসল প্রসেসে: ডেটা ভাগ হয়েছে, প্রতি ইপকে নতুন ক্রম, সব র‍্যাঙ্কের ওজন এক ও রেফারেন্সের সমান, আর শুধু rank 0 প্রশিক্ষিত ওজন (\"module.\" ছাড়া) সেভ করেছে।",
        "en": "Correct! With {worlds} real processes: the data is split, each epoch has a new order, all ranks hold the reference's weights, and only rank 0 saved the trained weights (without \"module.\").",
    },
})

MESSAGES.update({
    # lesson 01
    "checks.l01.integer_division": {
        "bn": "তোমার ফলাফল পূর্ণসংখ্যায় কাটা পড়েছে (// বা round): ভাগফলের ভগ্নাংশটুকু হারিয়ে যাচ্ছে। সাধারণ ভাগ / ব্যবহার করো।",
        "en": "Your result is cut to a whole number (// or round): the fractional part of the quotient is lost. Use ordinary division /.",
    },
    "checks.l01.batch_ignored": {
        "bn": "মাপা ধাপে মডেল পেয়েছে {got}টি নমুনার batch, অথচ batch_size = {want}। ইনপুট বানাও batch_size দিয়েই, নইলে মাপটা অন্য batch-এর।",
        "en": "In the timed step the model got a batch of {got} samples, but batch_size = {want}. Build the inputs from batch_size, or you measure another batch.",
    },
})

MESSAGES.update({
    # lesson 02
    "checks.l02.no_zero_grad": {
        "bn": "তোমার লুপের পরে ওজন এমন, যেন প্রতি batch-এর আগে গ্রেডিয়েন্ট শূন্য করা হয়নি: আগের ধাপের গ্রেডিয়েন্ট জমে যোগ হচ্ছে। backward-এর আগে optimizer.zero_grad() (বা model.zero_grad()) ডাকো।",
        "en": "After your loop the weights look as if gradients were never reset before a batch: old gradients keep adding up. Call optimizer.zero_grad() (or model.zero_grad()) before backward.",
    },
    "checks.l02.criterion_ignored": {
        "bn": "ওজন এমনভাবে বদলেছে যেন তুমি দেওয়া criterion ব্যবহার করোনি (নিজে F.cross_entropy লিখেছ?)। যাচাইয়ে criterion-এ label smoothing আছে: loss = criterion(model(inputs), targets) লেখো।",
        "en": "The weights changed as if you did not use the given criterion (wrote F.cross_entropy yourself?). The check's criterion uses label smoothing: write loss = criterion(model(inputs), targets).",
    },
    "checks.l02.wrong_weights": {
        "bn": "প্রশিক্ষণের পরে ওজন রেফারেন্স লুপের ওজনের সাথে মেলে না। প্রতি batch-এ ঠিক একবার: zero_grad, forward, loss, backward, step — এই ক্রমে, দেওয়া optimizer আর criterion দিয়েই।",
        "en": "After training the weights differ from the reference loop's. Once per batch: zero_grad, forward, loss, backward, step — in this order, with the given optimizer and criterion.",
    },
    "checks.l02.wrong_loss_values": {
        "bn": "ফেরত দেওয়া loss-এর তালিকায় ধাপ {step}-এর মান {got}, হওয়ার কথা {want}। প্রতি ধাপে সেই ধাপের loss-টাই রাখো (loss.detach() বা loss.item())।",
        "en": "In the returned list of losses, step {step} holds {got}; it should be {want}. Keep each step's own loss (loss.detach() or loss.item()).",
    },
    "checks.l02.loader_changed": {
        "bn": "তোমার লুপ loader-এর ডেটা বদলে দিয়েছে (জায়গায় বসে কোনো টেনসর পরিবর্তন)। ইনপুট বদলাতে নতুন টেনসর বানাও: inputs = inputs.to(device)।",
        "en": "Your loop changed the loader's data (a tensor modified in place). Make new tensors instead: inputs = inputs.to(device).",
    },
})

MESSAGES.update({
    # lesson 03
    "checks.l03.ignored_dtype": {
        "bn": "dtype={want} দেওয়া হলেও তোমার মডেলের ফরওয়ার্ড চলেছে {got}-এ: dtype নিজে লিখে দিয়েছ। autocast-এ দেওয়া dtype-টাই দাও: torch.amp.autocast(device, dtype=dtype)।",
        "en": "With dtype={want} your forward pass ran in {got}: the dtype is hard-coded. Pass the given one: torch.amp.autocast(device, dtype=dtype).",
    },
    "checks.l03.returned_scaled_loss": {
        "bn": "তুমি স্কেল করা loss ফেরত দিয়েছ (আসল loss × {scale})। scaler.scale(loss) শুধু backward-এর জন্য; ফেরত দাও আসল loss।",
        "en": "You returned the scaled loss (the real loss × {scale}). scaler.scale(loss) is only for backward; return the real loss.",
    },
    "checks.l03.wrong_loss": {
        "bn": "ফেরত দেওয়া মান {got}, কিন্তু এই ধাপের loss {want}। autocast-এর ভেতরে হিসাব করা loss-টাই ফেরত দাও (টেনসর বা .item())।",
        "en": "You returned {got}, but this step's loss is {want}. Return the loss computed inside autocast (a tensor or .item()).",
    },
    "checks.l03.mutated_input": {
        "bn": "তোমার ধাপ ইনপুট বা লক্ষ্য (inputs/targets) টেনসর বদলে দিয়েছে। autocast নিজেই dtype বদলায়; ইনপুটে হাত দিও না।",
        "en": "Your step changed the inputs or targets tensor. autocast changes dtypes by itself; leave the inputs alone.",
    },
    "checks.l03.fixed_max_norm": {
        "bn": "ওজন এমন, যেন max_norm = 1.0 দিয়ে ক্লিপ করা হয়েছে; যাচাইয়ে max_norm অন্য। দেওয়া max_norm-টাই ব্যবহার করো।",
        "en": "The weights look clipped with max_norm = 1.0; the check passes another max_norm. Use the given max_norm.",
    },
    "checks.l03.grad_mutated": {
        "bn": "তোমার ফাংশন ইনপুটের grad টেনসরটি বদলে দিয়েছে (জায়গায় বসে)। গুনতে শুধু নতুন টেনসর বানাও: grad.to(torch.float16) নতুন টেনসর দেয়।",
        "en": "Your function changed the grad tensor it was given (in place). Build new tensors to count: grad.to(torch.float16) returns a new one.",
    },
})
