"""The sentence rules of tests/_sentences.py, shown the wrong output they must catch (issue 38)."""

from _nbrun import CellShown
from _sentences import hygiene_problems, is_finding, unmarked_findings


def cell(index, stdout, count=None):
    return CellShown(index, "x", stdout, stdout, [{"output_type": "stream", "name": "stdout", "text": stdout}], count)


def test_findings_are_ratios_rankings_and_causes_in_both_languages():
    for line in ["fused, লুপ-এর চেয়ে 2.7 গুণ ধীর (n=64)", "+ fused AdamW 1.4× দ্রুত", "DDP is 1.9x faster",
                 "4টি প্রসেস… তাই গতিবৃদ্ধি 0.56×", "SDPA সবচেয়ে দ্রুত", "এই ফারাক কোরের জন্য অপেক্ষার কারণে",
                 "slower because the server waits"]:
        assert is_finding(line), line
    for line in ["মাপা সময়: 12.3 ms", "batch 64, 3 রান", "step 10: loss 2.31"]:
        assert not is_finding(line), line


def test_a_finding_in_a_noisy_cell_must_carry_its_noise_status():
    # lesson 04 cell 18 before issue 38: ratios printed, the warning below them in the same cell
    noisy_04 = cell(18, "fused, লুপ-এর চেয়ে 2.7 গুণ ধীর (n=64)\n➤ ⚠️ এখানে কোনো কারণ বলা হচ্ছে না ...\n")
    marked = cell(19, "fused 2.7 গুণ ধীর (n=64) ⚠️ গোলমেলে\nশান্ত সারি থেকে: foreach 1.3 গুণ দ্রুত\n")
    measured_noisy = cell(20, "SDPA 2.6 গুণ ধীর\n", count=7)  # no mark printed, but its measurement was noisy
    quiet = cell(21, "SDPA 2.6 গুণ দ্রুত\n", count=8)
    formula = cell(22, "➤ ring 2 গুণ কম পাঠায় কারণ প্রতিটি কাজ দুবার\n⚠️ গোলমেলে: ring (W=4)\n")
    records = [{"measurement": "noisy", "cell": 8}, {"measurement": "quiet", "cell": 9},
               {"sentence": "➤ ring 2 গুণ কম পাঠায় কারণ প্রতিটি কাজ দুবার", "declared": True, "stood_on": 0}]
    problems = unmarked_findings(records, [noisy_04, marked, measured_noisy, quiet, formula])
    assert [p.split(":")[0] for p in problems] == ["cell 18", "cell 20"], problems


def test_hygiene_catches_e_notation_and_repeated_lines_but_not_tensors_or_short_rules():
    bad = cell(1, "4.991e+04 samples/s\nপার্থক্য 2.2351741790771484e-08\n"
                  "⚠️ গোলমেলে মাপ: কারণ বলা হচ্ছে না\n⚠️ গোলমেলে মাপ: কারণ বলা হচ্ছে না\n")
    good = cell(2, "tensor([1.0000e-08, 2.0000e+00])\n--------\n--------\n49,910 samples/s\n| a | b |\n"
                   "সর্বোচ্চ পার্থক্য: 7.45e-09\n")
    problems = hygiene_problems([bad, good])
    assert len(problems) == 3 and all(p.startswith("cell 1") for p in problems), problems


def test_hygiene_reads_the_numbers_a_plot_drew():
    """Lesson 03's memory bars drew '1.31e+03' KiB in a lab run: a bar label or annotation in e+ notation is caught;
    a plot's ordinary labels, a small e-05 and a tick's own offset ('1e6') are not."""
    svg = ('<svg><text x="1">1.31e+03</text><text>অ্যাক্টিভেশন মেমরি (KiB)</text><text>1e6</text>'
           '<text>2.5e-05</text><text>1,310</text></svg>')
    bad = CellShown(4, "x", "", "", [{"output_type": "display_data", "data": {"image/svg+xml": svg}}])
    good = CellShown(5, "x", "", "", [{"output_type": "display_data",
                                        "data": {"image/svg+xml": svg.replace("1.31e+03", "1,310")}}])
    problems = hygiene_problems([bad, good])
    assert len(problems) == 1 and problems[0].startswith("cell 4: a plot shows") and "1.31e+03" in problems[0], problems


def test_hygiene_reads_the_numbers_a_table_shows():
    """Lesson 03's format table showed float16's largest value as 6.55e+04 and lesson 04's attention table a
    max difference of 0.0e+00 in a lab run: a table cell in e+ notation is caught; 65,504, 3.4 × 10^38, 0 and a
    small 1.2e-07 are not, and neither is the font a page embeds."""
    def table(*cells):
        return ('<style>@font-face { src: url(data:font/woff;base64,AB1e+09Cd) }</style><table><tr><th>max</th></tr>'
                + "".join(f"<tr><td>{c}</td></tr>" for c in cells) + "</table>")

    bad = CellShown(6, "x", "", "", [{"output_type": "display_data", "data": {"text/html": table("6.55e+04", "0.0e+00")}}])
    good = CellShown(7, "x", "", "", [{"output_type": "display_data",
                                        "data": {"text/html": table("65,504", "3.4 × 10^38", "0", "1.2e-07")}}])
    problems = hygiene_problems([bad, good])
    assert len(problems) == 2 and all(p.startswith("cell 6: a table shows") for p in problems), problems


def test_hygiene_catches_a_python_warning_under_a_cell_but_not_one_the_lesson_prints_on_purpose():
    """Lesson 04's ablation chart printed matplotlib's 'The figure layout has changed to tight' under its table in
    a lab run; lesson 03 shows the old AMP API's warnings on purpose, caught and printed as its own lines."""
    warned = CellShown(8, "x", "", "", [{"output_type": "stream", "name": "stderr", "text":
                       "/work/main/fastrain_lib/lessons/l04_fused_kernels/tables.py:131: UserWarning: The figure "
                       "layout has changed to tight\n  fig.tight_layout()\n"}])
    shown = CellShown(9, "x", "", "", [{"output_type": "stream", "name": "stdout", "text":
                      "FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated.\n"
                      "UserWarning: CUDA is not available or torch_xla is imported. Disabling autocast.\n"}])
    progress = CellShown(10, "x", "", "", [{"output_type": "stream", "name": "stderr", "text": "ধাপ: 100%|██| 4/4\n"}])
    problems = hygiene_problems([warned, shown, progress])
    assert len(problems) == 1 and problems[0].startswith("cell 8: a Python warning") and "tight" in problems[0], problems
