"""Messages shared by all exercise checks (fastrain_lib.lessons.checking)."""

MESSAGES = {
    "checking.correct": {"bn": "ঠিক হয়েছে! চমৎকার।", "en": "Correct! Well done."},
    "checking.not_done": {
        "bn": "এখনও উত্তর পাওয়া যায়নি: TODO-র জায়গায় তোমার কোড লেখো, তারপর এই সেল আবার চালাও।",
        "en": "No answer yet: write your code where the TODO is, then run this cell again.",
    },
    "checking.crashed": {
        "bn": "তোমার কোড চালাতে গিয়ে ত্রুটি হয়েছে: {error}। ত্রুটির বার্তাটি পড়ে কোড ঠিক করো।",
        "en": "Your code raised an error: {error}. Read the message and fix the code.",
    },
}

MESSAGES.update({
    "checking.unexpected": {
        "bn": "যাচাই-কোড তোমার উত্তরটি বুঝতে পারেনি ({error})। ফেরত দেওয়া মানের ধরন (type) কাজের বিবরণের সাথে মিলিয়ে দেখো।",
        "en": "The check could not make sense of your answer ({error}). Compare the type of what you return with the task.",
    },
    "checking.not_callable": {
        "bn": "এখানে একটি ফাংশন দিতে হবে, কিন্তু পাওয়া গেল {kind}। ফাংশনের নামটি দাও (বন্ধনী () ছাড়া)।",
        "en": "A function is needed here, but this is a {kind}. Pass the function's name (without parentheses).",
    },
    # call_student's guards (checking.py): said by every lesson's checks
    "checking.mutated_input": {
        "bn": "তোমার ফাংশন তার ইনপুট {name} বদলে দিয়েছে (যে জিনিস তোমাকে দেওয়া হয়েছে, তাতে লিখেছ)। "
              "ইনপুট বদলানো চলবে না: দরকার হলে আগে কপি করো (dict(x), list(x), x.clone()), তারপর কপিতে কাজ করো।",
        "en": "Your function changed its input {name} (it wrote into what it was given). Inputs must stay as they "
              "were: copy first if you need to (dict(x), list(x), x.clone()) and work on the copy.",
    },
    "checking.forbidden_call": {
        "bn": "এই অনুশীলনে {name} ব্যবহার করা যাবে না — সূত্রটি নিজে লেখাই কাজ। তোমার উত্তর {name} ডেকেছে; "
              "ওটা বাদ দিয়ে নিজের হিসাব লেখো।",
        "en": "This exercise asks you not to use {name}: writing the formula yourself is the task. Your answer "
              "called {name}; remove it and write your own calculation.",
    },
    # lesson 05
    "checking.l05.timeout": {
        "bn": "{world}টি প্রসেসে তোমার কোড {seconds} সেকেন্ডেও শেষ হয়নি: সম্ভবত কোনো র‍্যাঙ্ক এমন all_reduce/barrier-এ অপেক্ষা করছে যা অন্যরা ডাকেনি (যেমন `if rank == 0:`-এর ভেতরে)। প্রসেসগুলো বন্ধ করা হয়েছে।",
        "en": "With {world} processes your code did not finish within {seconds} s: probably one rank waits in an all_reduce/barrier the others never call (e.g. inside `if rank == 0:`). The processes were stopped.",
    },
    "checking.l05.idle_mutated": {
        "bn": "তোমার ফাংশন ইনপুটের events তালিকাটি বদলে দিয়েছে (যেমন জায়গায় sort করা বা কোনো মান বদলানো)। টাইমলাইন অন্যরাও ব্যবহার করে: sorted(...) দিয়ে নতুন তালিকা বানাও, মূলটা যেমন আছে রাখো।",
        "en": "Your function changed the events list it was given (e.g. sorted it in place or changed a value). Others use that timeline too: build a new list with sorted(...) and leave the original as it is.",
    },
    "checking.l05.idle_not_only_work": {
        "bn": "তুমি সব event গুনেছ, কিন্তু কাজ শুধু kind \"F\" আর \"B\"; মাপা টাইমলাইনে অন্য event-ও থাকে (যেমন \"A\": গ্রেডিয়েন্টের all-reduce)। আগে শুধু F আর B বেছে নাও।",
        "en": "You counted every event, but only kind \"F\" and \"B\" are pipeline work; measured timelines hold others too (e.g. \"A\": the gradient all-reduce). Keep only F and B first.",
    },
    "checking.l05.idle_span_from_zero": {
        "bn": "span হিসাবে তুমি শুধু শেষ কাজের end নিয়েছ, যেন ঘড়ি 0 থেকে শুরু। মাপা ঘড়ি 0 থেকে শুরু হয় না: span = শেষ কাজের end − প্রথম কাজের start।",
        "en": "You took the last end as the span, as if the clock started at 0. Measured clocks do not: span = last end − first start.",
    },
    "checking.l05.avg_grad_lost": {
        "bn": "কাজ শেষে কোনো প্যারামিটারের p.grad নেই বা তার আকার বদলে গেছে। p.grad-এর জায়গাতেই গড় বসাও।",
        "en": "Afterwards some parameter has no p.grad, or its shape changed. Put the mean into p.grad itself.",
    },
    "checking.l05.avg_dtype": {
        "bn": "গ্রেডিয়েন্টের dtype বদলে গেছে ({want} থেকে {got})। গড় নেওয়ার সময় dtype যেমন ছিল তেমন রাখো।",
        "en": "The gradients' dtype changed ({want} to {got}). Keep the dtype while averaging.",
    },
    "checking.l05.avg_weights_changed": {
        "bn": "তোমার ফাংশন মডেলের ওজন (p নিজে) বদলে দিয়েছে; বদলানোর কথা শুধু p.grad-এর।",
        "en": "Your function changed the model's weights (p itself); only p.grad should change.",
    },
    "checking.l05.avg_factor": {
        "bn": "{world}টি প্রসেসে তোমার গড় ঠিক মানের ×{factor} গুণ: যোগফলকে world_size দিয়ে ভাগ করো (কোনো সংখ্যা নিজে লিখে দিও না; প্রসেসের সংখ্যা world_size বা dist.get_world_size())।",
        "en": "With {world} processes your average is off by ×{factor}: divide the sum by world_size (do not write a fixed number; the process count is world_size or dist.get_world_size()).",
    },
    "checking.l05.ddp_sampler_count": {
        "bn": "{world}টি প্রসেসে প্রতিটি র‍্যাঙ্কের প্রতি ইপকে {want}টি নমুনা পড়ার কথা (মোট {n}টি ভাগ করে, ceil(n / world_size)), পড়েছে {got}টি। DistributedSampler(dataset, num_replicas=world_size, rank=rank, ...) দাও — সংখ্যা নিজে লিখে দিও না।",
        "en": "With {world} processes each rank should read {want} samples per epoch ({n} split, ceil(n / world_size)); it read {got}. Use DistributedSampler(dataset, num_replicas=world_size, rank=rank, ...) — no fixed numbers.",
    },
    "checking.l05.ddp_bad_checkpoint": {
        "bn": "চেকপয়েন্ট ফাইলটি মডেলের state_dict নয় ({error})। rank 0 লিখবে torch.save(model.state_dict(), checkpoint_path)।",
        "en": "The checkpoint file is not the model's state_dict ({error}). Rank 0 writes torch.save(model.state_dict(), checkpoint_path).",
    },
    "checking.l05.ddp_module_prefix": {
        "bn": "চেকপয়েন্টের প্রতিটি নামের আগে \"module.\": তুমি DDP-মোড়ানো মডেলের state_dict সেভ করেছ। সাধারণ মডেলে (DDP ছাড়া) এটা লোড হবে না। model.state_dict() (মোড়ানোর আগের মডেল) বা ddp_model.module.state_dict() সেভ করো।",
        "en": "Every name in the checkpoint starts with \"module.\": you saved the DDP wrapper's state_dict, which a plain model cannot load. Save model.state_dict() (the unwrapped model) or ddp_model.module.state_dict().",
    },
    "checking.l05.ddp_saved_untrained": {
        "bn": "চেকপয়েন্টে প্রশিক্ষণের আগের ওজন: torch.save প্রশিক্ষণ লুপের আগে চলেছে। লুপ শেষ হওয়ার পরে সেভ করো।",
        "en": "The checkpoint holds the weights from before training: torch.save ran before the loop. Save after the loop ends.",
    },
    "checking.l05.ddp_checkpoint_stale": {
        "bn": "চেকপয়েন্টের ওজন প্রশিক্ষণ শেষের ওজনের সাথে মেলে না (মাঝপথে সেভ হয়েছে?)। সব ইপক শেষ হলে একবার সেভ করো।",
        "en": "The checkpoint's weights differ from the trained ones (saved midway?). Save once, after all epochs.",
    },
})

MESSAGES.update({
    # lesson 01
    "checking.l01.integer_division": {
        "bn": "তোমার ফলাফল পূর্ণসংখ্যায় কাটা পড়েছে (// বা round): ভাগফলের ভগ্নাংশটুকু হারিয়ে যাচ্ছে। সাধারণ ভাগ / ব্যবহার করো।",
        "en": "Your result is cut to a whole number (// or round): the fractional part of the quotient is lost. Use ordinary division /.",
    },
    "checking.l01.batch_ignored": {
        "bn": "মাপা ধাপে মডেল পেয়েছে {got}টি নমুনার batch, অথচ batch_size = {want}। ইনপুট বানাও batch_size দিয়েই, নইলে মাপটা অন্য batch-এর।",
        "en": "In the timed step the model got a batch of {got} samples, but batch_size = {want}. Build the inputs from batch_size, or you measure another batch.",
    },
})

MESSAGES.update({
    # lesson 02
    "checking.l02.no_zero_grad": {
        "bn": "তোমার লুপের পরে ওজন এমন, যেন প্রতি batch-এর আগে গ্রেডিয়েন্ট শূন্য করা হয়নি: আগের ধাপের গ্রেডিয়েন্ট জমে যোগ হচ্ছে। backward-এর আগে optimizer.zero_grad() (বা model.zero_grad()) ডাকো।",
        "en": "After your loop the weights look as if gradients were never reset before a batch: old gradients keep adding up. Call optimizer.zero_grad() (or model.zero_grad()) before backward.",
    },
    "checking.l02.criterion_ignored": {
        "bn": "ওজন এমনভাবে বদলেছে যেন তুমি দেওয়া criterion ব্যবহার করোনি (নিজে F.cross_entropy লিখেছ?)। যাচাইয়ে criterion-এ label smoothing আছে: loss = criterion(model(inputs), targets) লেখো।",
        "en": "The weights changed as if you did not use the given criterion (wrote F.cross_entropy yourself?). The check's criterion uses label smoothing: write loss = criterion(model(inputs), targets).",
    },
    "checking.l02.wrong_weights": {
        "bn": "প্রশিক্ষণের পরে ওজন রেফারেন্স লুপের ওজনের সাথে মেলে না। প্রতি batch-এ ঠিক একবার: zero_grad, forward, loss, backward, step — এই ক্রমে, দেওয়া optimizer আর criterion দিয়েই।",
        "en": "After training the weights differ from the reference loop's. Once per batch: zero_grad, forward, loss, backward, step — in this order, with the given optimizer and criterion.",
    },
    "checking.l02.wrong_loss_values": {
        "bn": "ফেরত দেওয়া loss-এর তালিকায় ধাপ {step}-এর মান {got}, হওয়ার কথা {want}। প্রতি ধাপে সেই ধাপের loss-টাই রাখো (loss.detach() বা loss.item())।",
        "en": "In the returned list of losses, step {step} holds {got}; it should be {want}. Keep each step's own loss (loss.detach() or loss.item()).",
    },
    "checking.l02.loader_changed": {
        "bn": "তোমার লুপ loader-এর ডেটা বদলে দিয়েছে (ইন-প্লেস, in-place, কোনো টেনসর পরিবর্তন)। ইনপুট বদলাতে নতুন টেনসর বানাও: inputs = inputs.to(device)।",
        "en": "Your loop changed the loader's data (a tensor modified in place). Make new tensors instead: inputs = inputs.to(device).",
    },
})

MESSAGES.update({
    # lesson 03
    "checking.l03.ignored_dtype": {
        "bn": "dtype={want} দেওয়া হলেও তোমার মডেলের ফরওয়ার্ড চলেছে {got}-এ: dtype নিজে লিখে দিয়েছ। autocast-এ দেওয়া dtype-টাই দাও: torch.amp.autocast(device, dtype=dtype)।",
        "en": "With dtype={want} your forward pass ran in {got}: the dtype is hard-coded. Pass the given one: torch.amp.autocast(device, dtype=dtype).",
    },
    "checking.l03.returned_scaled_loss": {
        "bn": "তুমি স্কেল করা loss ফেরত দিয়েছ (আসল loss × {scale})। scaler.scale(loss) শুধু backward-এর জন্য; ফেরত দাও আসল loss।",
        "en": "You returned the scaled loss (the real loss × {scale}). scaler.scale(loss) is only for backward; return the real loss.",
    },
    "checking.l03.wrong_loss": {
        "bn": "ফেরত দেওয়া মান {got}, কিন্তু এই ধাপের loss {want}। autocast-এর ভেতরে হিসাব করা loss-টাই ফেরত দাও (টেনসর বা .item())।",
        "en": "You returned {got}, but this step's loss is {want}. Return the loss computed inside autocast (a tensor or .item()).",
    },
    "checking.l03.mutated_input": {
        "bn": "তোমার ধাপ ইনপুট বা লক্ষ্য (inputs/targets) টেনসর বদলে দিয়েছে। autocast নিজেই dtype বদলায়; ইনপুটে হাত দিও না।",
        "en": "Your step changed the inputs or targets tensor. autocast changes dtypes by itself; leave the inputs alone.",
    },
    "checking.l03.fixed_max_norm": {
        "bn": "ওজন এমন, যেন max_norm = 1.0 দিয়ে ক্লিপ করা হয়েছে; যাচাইয়ে max_norm অন্য। দেওয়া max_norm-টাই ব্যবহার করো।",
        "en": "The weights look clipped with max_norm = 1.0; the check passes another max_norm. Use the given max_norm.",
    },
    "checking.l03.grad_mutated": {
        "bn": "তোমার ফাংশন ইনপুটের grad টেনসরটি বদলে দিয়েছে (ইন-প্লেস, in-place)। গুনতে শুধু নতুন টেনসর বানাও: grad.to(torch.float16) নতুন টেনসর দেয়।",
        "en": "Your function changed the grad tensor it was given (in place). Build new tensors to count: grad.to(torch.float16) returns a new one.",
    },
})

MESSAGES.update({
    # lesson 04
    "checking.l04.adam_not_in_place": {
        "bn": "তুমি ঠিক মানগুলো নতুন তালিকায় ফেরত দিয়েছ, কিন্তু দেওয়া params টেনসরগুলো বদলায়নি। অপটিমাইজার এই টেনসরগুলোই দেখে: torch._foreach_*_ (শেষে _ সহ) দিয়ে জায়গায় বদলাও।",
        "en": "You returned the right values in new lists, but the given params tensors did not change. The optimizer sees those very tensors: update them in place with torch._foreach_*_ (with the trailing _).",
    },
    "checking.l04.adam_dtype": {
        "bn": "প্যারামিটারের dtype বদলে গেছে। float64 প্যারামিটার float64-ই থাকবে: নিজে .float() বা নির্দিষ্ট dtype লিখো না।",
        "en": "The parameters' dtype changed. float64 parameters stay float64: do not write .float() or a fixed dtype.",
    },
    "checking.l04.adam_fixed_betas": {
        "bn": "betas = {betas} দেওয়া হলেও তোমার ফল 0.9 আর 0.999 দিয়ে হিসাবের সমান: betas নিজে লিখে দিয়েছ। beta1, beta2 = betas ব্যবহার করো।",
        "en": "With betas = {betas} your result equals the one with 0.9 and 0.999: the betas are hard-coded. Use beta1, beta2 = betas.",
    },
    "checking.l04.adam_fixed_eps": {
        "bn": "eps = {eps} দেওয়া হলেও তোমার ফল eps = 1e-8 দিয়ে হিসাবের সমান: eps নিজে লিখে দিয়েছ। দেওয়া eps ব্যবহার করো।",
        "en": "With eps = {eps} your result equals the one with eps = 1e-8: eps is hard-coded. Use the given eps.",
    },
    "checking.l04.launch_ignored_n": {
        "bn": "n_tensors = {n} হলেও তোমার সংখ্যা {other}টি টেনসরের মাপের সমান: টেনসরের সংখ্যা নিজে লিখে দিয়েছ। n_tensors টি টেনসর বানাও।",
        "en": "With n_tensors = {n} your count equals the one for {other} tensors: the number is hard-coded. Build n_tensors tensors.",
    },
    "checking.l04.launch_ignored_impl": {
        "bn": "impl = \"{impl}\" চাওয়া হলেও তোমার সংখ্যা অন্য বাস্তবায়নের সমান। fused.make_optimizer(params, impl)-এ দেওয়া impl-টাই দাও।",
        "en": "For impl = \"{impl}\" your count equals the other implementation's. Pass the given impl to fused.make_optimizer(params, impl).",
    },
    "checking.l04.ln_mutated": {
        "bn": "তোমার ফাংশন ইনপুট x (বা weight/bias) বদলে দিয়েছে (যেমন x -= mean বা sub_)। নতুন টেনসর বানাও: x - mean।",
        "en": "Your function changed its input x (or weight/bias), e.g. x -= mean or sub_. Build new tensors: x - mean.",
    },
    "checking.l04.ln_not_tensor": {
        "bn": "ফলাফল x-এর মতো একটি দশমিক টেনসর হওয়ার কথা, পাওয়া গেল {got}।",
        "en": "The result should be a floating-point tensor like x; got {got}.",
    },
    "checking.l04.ln_dtype": {
        "bn": "মানগুলো ঠিক, কিন্তু dtype বদলে গেছে ({want} থেকে {got})। LayerNorm ইনপুটের dtype-ই রাখে: .float() বা নির্দিষ্ট dtype লিখো না।",
        "en": "The values are right but the dtype changed ({want} to {got}). LayerNorm keeps the input's dtype: no .float() or fixed dtype.",
    },
    "checking.l04.ln_fixed_eps": {
        "bn": "eps = {eps} দেওয়া হলেও তোমার ফল eps = 1e-5 দিয়ে হিসাবের সমান: eps নিজে লিখে দিয়েছ। দেওয়া eps ব্যবহার করো।",
        "en": "With eps = {eps} your result equals the one with eps = 1e-5: eps is hard-coded. Use the given eps.",
    },
})

MESSAGES.update({
    # lesson 06
    "checking.l06.update_mutated": {
        "bn": "তোমার ফাংশন ইনপুট (theta, theta_read বা batch) ইন-প্লেস (in-place) বদলে দিয়েছে (যেমন theta -= ...)। সার্ভারের কপি অন্যরাও পড়ে: নতুন টেনসর ফেরত দাও, theta - lr * ...।",
        "en": "Your function changed an input (theta, theta_read or the batch) in place (e.g. theta -= ...). Others read the server's copy: return a new tensor, theta - lr * ....",
    },
    "checking.l06.update_fixed_lr": {
        "bn": "তোমার ফল শেখার হার 0.1 ধরে হিসাবের সমান, অথচ যাচাই অন্য lr দিয়েছে: দেওয়া lr ব্যবহার করো।",
        "en": "Your result equals the one with learning rate 0.1, but the check passed another lr: use the given lr.",
    },
    "checking.l06.clocks_mutated": {
        "bn": "তোমার ফাংশন clocks তালিকাটি বদলে দিয়েছে (যেমন sort() বা pop())। এটা সব কর্মীর ঘড়ি: শুধু পড়ো, min(clocks) দিয়ে।",
        "en": "Your function changed the clocks list (e.g. sort() or pop()). It holds every worker's clock: only read it, with min(clocks).",
    },
    "checking.l06.times_mutated": {
        "bn": "তোমার ফাংশন step_times তালিকাটি বদলে দিয়েছে (যেমন sort())। শুধু পড়ো: max(...), sum(...)।",
        "en": "Your function changed the step_times list (e.g. sort()). Only read it: max(...), sum(...).",
    },
    "checking.l06.not_bool": {
        "bn": "উত্তর হবে True বা False, পাওয়া গেল {got}।",
        "en": "The answer is True or False; got {got}.",
    },
    "checking.l06.rule_first_not_min": {
        "bn": "তুমি প্রথম কর্মীর ঘড়ির সাথে তুলনা করেছ (clocks[0]), কিন্তু সবচেয়ে ধীর কর্মী যে কেউ হতে পারে: min(clocks) ব্যবহার করো।",
        "en": "You compared with the first worker's clock (clocks[0]), but any worker can be the slowest: use min(clocks).",
    },
    "checking.l06.epoch_no_ceil": {
        "bn": "{n}টি batch {workers} জনে ভাগ করলে শেষ ধাপটি পূর্ণ হয় না, তবু সেই ধাপেও সবচেয়ে ধীরজনের পুরো সময় লাগে: ধাপের সংখ্যা math.ceil(n_batches / W), ভগ্নাংশ বা // নয়।",
        "en": "{n} batches over {workers} workers leave the last step partly empty, yet it still takes the slowest worker's full time: the number of steps is math.ceil(n_batches / W), not a fraction or //.",
    },
})

MESSAGES.update({
    # lesson 07
    "checking.l07.digit_as_letter": {
        "bn": "{text} থেকে পাওয়া গেল {got}, হওয়ার কথা {expected}: সংখ্যা (৩, 7) বর্ণ নয়, তাই সংখ্যার পরের চিহ্নও ঝুলন্ত। str.isalpha() দিয়ে দেখো (isalnum() নয়)।",
        "en": "From {text} you returned {got}; expected {expected}: digits (৩, 7) are not letters, so a mark after a digit dangles too. Test with str.isalpha() (not isalnum()).",
    },
    "checking.l07.removes_too_much": {
        "bn": "{text} থেকে পাওয়া গেল {got}, হওয়ার কথা {expected}: তুমি বেশি সরিয়েছ। একটি চিহ্নের পরে আরেকটি চিহ্ন (যেমন কাং-এ া তারপর ং) জোড়া-লাগা, ঝুলন্ত নয়; আর শুধু চিহ্নই সরবে, অন্য অক্ষর নয়।",
        "en": "From {text} you returned {got}; expected {expected}: you removed too much. A mark right after a kept mark (া then ং in কাং) is attached, not dangling; and only marks may go, no other characters.",
    },
    "checking.l07.wrong_text": {
        "bn": "{text} থেকে পাওয়া গেল {got}, হওয়ার কথা {expected}। মনে রাখো: আগের অক্ষর মানে যা তুমি রেখেছ (মূল লেখার আগের অক্ষর নয়) — তাই স্পেসের পরে দুটি চিহ্ন থাকলে দুটিই সরে।",
        "en": "From {text} you returned {got}; expected {expected}. Remember: the previous character is the one you kept (not the one before in the original) — so two marks after a space both go.",
    },
})
