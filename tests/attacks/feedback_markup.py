"""Markup in every output the feedback page shows, now that nbconvert no longer re-parses the page.

The learner has read that the feedback exporter skips BeautifulSoup's pass and adds alt text to
images with a regular expression: it prints tags, displays HTML and a Markdown object, and an
image whose data tries to close its src attribute, hoping for a tag of its own on the page
(INJECTED inside any tag fails the test).
"""
# %% answer sdpa
from IPython.display import HTML, Markdown, display
_tags = '<img src=x onerror=INJECTED><script>INJECTED</script></pre><img alt="" src=x onerror=INJECTED>'
print(_tags)
display(HTML(_tags))
display(Markdown(_tags))
display({"image/png": 'AAAA" onerror="INJECTED', "text/plain": _tags}, raw=True)

def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
