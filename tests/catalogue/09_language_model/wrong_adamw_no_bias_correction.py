"""AdamW without the bias correction of m and v."""
# expect: no bias correction
# %% patch adamw
# -     m_hat = exp_avg / (1 - beta1 ** step)
# -     v_hat = exp_avg_sq / (1 - beta2 ** step)
# +     m_hat = exp_avg
# +     v_hat = exp_avg_sq
