"""swiglu_hidden_size by comparing the two neighbouring multiples in exact fractions."""
# %% answer swiglu_hidden_size
def swiglu_hidden_size(d_model, multiple_of=1):
    """The multiple of multiple_of nearest to 8 * d_model / 3, ties up, at least multiple_of."""
    from fractions import Fraction

    target = Fraction(8 * d_model, 3)
    low = (target // multiple_of) * multiple_of
    high = low + multiple_of
    return int(max(multiple_of, high if high - target <= target - low else low))
