"""What the census attack (tests/attacks/reach_the_kernel.py) walks in a graded kernel: the names the old
allow-list listed, a sample of what an answer may name (the scan now allows every public name of the modules
autograder.checks.perimeter.ANSWER_MODULES lists, tests/decided_api.json): none may lead to the kernel."""

from __future__ import annotations


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


_TORCH = _names(
    """
    Tensor Size Generator device dtype finfo iinfo
    float16 float32 float64 bfloat16 half float double complex64 complex128 cfloat cdouble
    int8 int16 int32 int64 uint8 int long short bool
    inf nan pi e
    no_grad enable_grad inference_mode set_grad_enabled is_grad_enabled get_default_dtype
    manual_seed is_tensor is_floating_point is_complex numel
    tensor as_tensor asarray from_numpy zeros ones empty full zeros_like ones_like empty_like full_like
    rand randn randint rand_like randn_like randint_like randperm normal bernoulli multinomial
    arange linspace logspace eye tril_indices triu_indices complex polar
    abs absolute neg negative add sub subtract mul multiply div divide true_divide floor_divide
    remainder fmod pow float_power exp exp2 expm1 log log2 log10 log1p sqrt rsqrt square reciprocal
    sin cos tan asin acos atan atan2 arctan2 sinh cosh tanh sigmoid logit erf erfc erfinv
    sign sgn signbit floor ceil round trunc frac clamp clip clamp_min clamp_max maximum minimum
    fmax fmin where lerp addcmul addcdiv hypot logaddexp logaddexp2 xlogy nan_to_num copysign relu
    isnan isinf isfinite isposinf isneginf isclose allclose equal eq ne lt le gt ge greater less
    logical_and logical_or logical_not logical_xor bitwise_and bitwise_or bitwise_not bitwise_xor
    masked_fill masked_select real imag conj angle view_as_real view_as_complex
    sum mean prod max min amax amin aminmax argmax argmin logsumexp softmax log_softmax
    var std var_mean std_mean cumsum cumprod cummax cummin logcumsumexp all any count_nonzero
    median quantile nansum nanmean sort argsort topk kthvalue unique bincount diff
    matmul mm bmm mv dot vdot outer inner einsum tensordot baddbmm addmm addbmm addmv kron cdist
    cat concat concatenate stack hstack vstack split chunk tensor_split unbind reshape flatten unflatten
    squeeze unsqueeze transpose swapaxes swapdims permute movedim moveaxis t narrow select index_select
    gather scatter scatter_add scatter_reduce take take_along_dim broadcast_to broadcast_tensors
    broadcast_shapes repeat_interleave tile flip fliplr flipud roll rot90 tril triu diag diagonal
    diag_embed nonzero argwhere meshgrid searchsorted bucketize index_add index_copy index_fill index_put
    clone detach atleast_1d atleast_2d atleast_3d norm ravel narrow_copy hsplit vsplit dsplit split_with_sizes
    acosh asinh atanh arccos arcsin arctan arccosh arcsinh arctanh deg2rad rad2deg sinc frexp ldexp gcd lcm
    heaviside lgamma digamma polygamma mvlgamma igamma igammac i0 nextafter positive fix prelu hardshrink
    greater_equal less_equal not_equal isreal is_nonzero is_signed is_same_size
    cross dist trace det logdet slogdet inverse pinverse matrix_power matrix_exp histc histogram cov corrcoef
    msort nanmedian nanquantile mode unique_consecutive diagflat index_reduce masked_scatter diagonal_scatter
    select_scatter slice_scatter
    nn linalg cuda testing
    """
)

_NN = _names(
    """
    Module Parameter Buffer ModuleList ModuleDict ParameterList ParameterDict Sequential Identity
    Linear Bilinear Embedding Dropout Dropout1d Flatten Unflatten
    ReLU GELU SiLU Tanh Sigmoid Softmax LogSoftmax LeakyReLU ELU Softplus Mish GLU
    CrossEntropyLoss NLLLoss MSELoss L1Loss BCELoss BCEWithLogitsLoss
    functional init
    """
)

_FUNCTIONAL = _names(
    """
    linear bilinear embedding dropout pad one_hot
    relu relu6 gelu silu mish elu leaky_relu softplus glu logsigmoid sigmoid tanh hardtanh
    softmax log_softmax
    cross_entropy nll_loss mse_loss l1_loss binary_cross_entropy binary_cross_entropy_with_logits kl_div
    """
)

_INIT = _names(
    """
    xavier_uniform_ xavier_normal_ kaiming_uniform_ kaiming_normal_ normal_ uniform_ zeros_ ones_
    constant_ trunc_normal_ orthogonal_ eye_ calculate_gain
    """
)

_NUMPY = _names(
    """
    array asarray zeros ones empty full zeros_like ones_like empty_like full_like arange linspace eye identity
    exp log log2 log10 log1p expm1 sqrt square abs absolute sign power maximum minimum max min amax amin
    argmax argmin sum mean var std prod cumsum where matmul dot einsum tensordot outer transpose swapaxes
    moveaxis reshape ravel squeeze expand_dims concatenate stack hstack vstack split array_split broadcast_to
    tile repeat tril triu diag sort argsort take_along_axis clip round floor ceil isnan isinf isfinite
    isclose allclose array_equal tanh sin cos logaddexp nanmax nanmin nansum divide multiply add subtract
    negative reciprocal nonzero count_nonzero all any unique flip roll pad atleast_2d meshgrid errstate
    nan inf pi e newaxis float16 float32 float64 int8 int16 int32 int64 uint8 bool_ ndarray dtype
    random linalg testing
    """
)

CENSUS: dict[str, frozenset[str]] = {
    "torch": _TORCH,
    "torch.nn": _NN,
    "torch.nn.functional": _FUNCTIONAL,
    "torch.nn.init": _INIT,
    "torch.linalg": _names("vector_norm matrix_norm norm inv solve det"),
    "torch.cuda": _names("is_available device_count"),
    "torch.testing": _names("assert_close"),
    "numpy": _NUMPY,
    "numpy.random": _names("default_rng seed rand randn randint random shuffle permutation normal uniform choice"),
    "numpy.linalg": _names("norm inv solve det"),
    "numpy.testing": _names("assert_allclose assert_array_equal"),
    "math": _names(
        """
        sqrt exp expm1 log log2 log10 log1p pow ceil floor trunc fabs copysign isclose isfinite isinf isnan
        sin cos tan asin acos atan atan2 sinh cosh tanh erf erfc gamma lgamma hypot fsum prod gcd lcm comb
        perm factorial isqrt degrees radians dist modf fmod remainder pi e tau inf nan
        """
    ),
    "random": _names("Random random seed shuffle randint randrange choice choices sample uniform gauss"),
    "sys": _names("stderr stdout maxsize float_info"),
    "warnings": _names("warn simplefilter filterwarnings"),
    "time": _names("time perf_counter monotonic"),
    # not wraps/update_wrapper: their `assigned`/`updated` read attributes named by strings (__builtins__)
    "functools": _names("partial reduce lru_cache cache cached_property total_ordering"),
    "itertools": _names(
        "accumulate chain combinations count cycle islice pairwise permutations product repeat starmap zip_longest"
    ),
    "collections": _names("defaultdict OrderedDict Counter deque namedtuple"),
    "typing": _names(
        "Any Callable Optional Union Tuple List Dict Sequence Iterable Iterator Mapping NamedTuple Literal TypeVar"
    ),
    "dataclasses": _names("dataclass field"),
    "copy": _names("copy deepcopy"),
    "fractions": _names("Fraction"),
    "contextlib": _names("nullcontext contextmanager"),
    "tqdm": _names("auto"),
    "tqdm.auto": _names("tqdm"),
    "matplotlib": _names("pyplot"),
    "matplotlib.pyplot": _names("plot imshow figure subplots show title xlabel ylabel legend colorbar close hist"),
    "__future__": _names("annotations"),
    "workbook": _names(
        "GRADING Check heatmap pick_device scaled seed_everything self_check count_parameters calls_to to_numpy"
    ),
}
"""Per module: the names the census walks."""
