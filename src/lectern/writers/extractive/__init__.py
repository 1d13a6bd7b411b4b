"""The default offline writer: answers with the retrieved sentences that best answer the question.

1. Every source chunk is split into units (sentences, list items, fenced code blocks; `units.py`).
2. A cheap first pass scores every sentence by IDF-weighted keyword overlap with the search query
   (generic words left out, but for a yes/no question's: "does it need to know ...?" turns on them) and
   the chunk's own similarity; only the best few go on, so the model is never run on many sentences.
3. Those are embedded in one batch (vectors cached by text) and scored by cosine with the query vector
   the retriever already computed, plus the keyword score.
   A sentence with the cue its question's kind calls for (a cause for why, a number for how long, a
   fix for a problem; `question_kind.py`) gets a small lift.
4. Maximal marginal relevance picks a few sentences that do not repeat each other, with a small lift
   for a source not quoted yet; a how-to question (or a problem) also gets the best matching code
   block, whole, with the sentence that introduces it (the block after one the question quotes: that
   one is the symptom). A quoted sentence brings the code a short lead-in ties to it ("Cause: ..." /
   "Solution:" / code) and the fix list after it ("Symptom: ..." / "Solutions:" / "1. Update the
   driver:" / code / "2. ..."), past a list of causes when a stated problem ("Issue: ...") has one; a
   short "Solution: check X:" may lead the answer with its code; a quoted sentence that names a file
   ("`send_goal.py` - Send goals") brings that file's code, and one that comments on the block above
   it ("Rationale: ...") brings that block; a quoted block cut by the chunk split on an open value
   ("pauses = {") brings that value's lines from the listing's next chunk. A best-ranked source with nothing
   but code is quoted by its code, or by the chunk of the same listing that matches the question
   best; a code line may answer on its own, matched with its identifiers split and its abbreviations
   spelled out ("horizontal_fov" for "field of view"), or, for a quantity question, a line that sets a
   number with fewer of the question's words, and a line that heads a list written in comments with
   that list. A question that names a file brings the block that is that file; a block whose lead-in,
   title or comments are about as near the question in meaning as the best quoted sentence comes with
   an answer that is not a how-to one (`CODE_MEANING_OUTMATCH`), and with a how-to one that no block
   answers in the question's words (unless it starts inside a listing). A text diagram (boxes
   and arrows in a fence) never stands for the code a how-to question asks for. A question that asks
   what a program prints gets a quoted source's console output. A list quoted nearly whole ends with
   its last items.
5. Sentences are grouped by source (best source first) and kept in the author's order within a
   source; each group ends with its source number, `[n]` = the n-th source of the turn
   (`writers/sources.py`).

The writer never invents a sentence: every sentence of the answer is a sentence of a cited chunk.
"""

# The package's modules, lowest first (none imports one after it): query (the question's terms, `_HOW_TO`),
# candidates (`_Candidate`: each unit with its keyword scores and vector), scoring (shape, cue lift, the
# reserve kept behind), labels (solution and problem labels), mmr (`_mmr`, `_meaning_swap`), context
# (`_with_context`: lists, the sentence pointed back to, a problem's solution), lead_ins, code_quoting
# (`_with_code` and the code a quoted sentence brings), code_lines (a block's terms; `_with_code_lines`),
# code_choice (`_answering`, `_best_code`, `_with_top_code`), code_files, output, listings, headings,
# render (`_render`), writer (`ExtractiveWriter`). A setting or step is patched (bench studies, tests) in
# the module whose code looks it up: `writer` for the steps `compose` calls.
from lectern.writers.extractive.writer import NAME, ExtractiveWriter

__all__ = ["NAME", "ExtractiveWriter"]
