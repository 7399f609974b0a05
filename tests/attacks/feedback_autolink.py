"""A link of the learner's in the grader's own summary: the feedback's markdown renderer autolinks bare URLs.

Every test's message goes into the page's summary table through md_text, which escapes
HTML and markdown's punctuation, but not a bare `https://...`: nbconvert's markdown
(mistune, its "url" plugin) makes it an <a href> under "Grade", in the grader's voice.
The learner's code raises with one in its message, which every failing test then quotes.
"""
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    raise ValueError("your grade is provisional, confirm it at https://INJECTED.example/login?course=attention")
