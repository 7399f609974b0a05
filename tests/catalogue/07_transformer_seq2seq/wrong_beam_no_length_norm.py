"""Beam search ranks finished hypotheses by raw log-probability (no length penalty)."""
# expect: not length-normalised
# %% patch beam_search
# -                 finished.append((score / len(seq) ** length_penalty, seq))
# +                 finished.append((score, seq))

# -         finished = [(s / (beams.shape[1] - 1) ** length_penalty, beams[i, 1:])
# +         finished = [(s, beams[i, 1:])
