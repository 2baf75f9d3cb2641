"""Student text that must stay data: an answer raising an exception whose message is markup of every
kind the outputs speak (HTML, rich, Markdown, XML-invalid characters) and whose class name spells out
the hidden inputs it was called with."""

MARKUP = '<img src=x onerror="alert(1)"> [/] [bold]x[/bold] | a | b \x00\x07\x1b[31m [link](javascript:alert(1))'

LEAKY_ATTENTION = f'''import numpy as np
def attention(Q, K, V):
    q = np.asarray(Q, dtype=float).ravel()[:4]
    name = "Leak_" + "_".join(f"{{x:.3f}}" for x in q).replace(".", "p").replace("-", "m")
    raise type(name, (Exception,), {{}})({MARKUP!r})
'''
