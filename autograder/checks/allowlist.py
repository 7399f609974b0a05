"""What an answer cell may reach: the allow-lists that judge forbidden built-ins (autograder.checks.forbidden).

Everything here is data, reviewed by hand. A name is allowed only if it is listed, so
whatever a new PyTorch (or NumPy, or Python) adds is a finding until someone adds it here.

- ALLOWED: per module, the names an answer may use anywhere, forbidden or not by a rule:
  ordinary tensor maths (creation, elementwise maths, reductions with softmax and
  log_softmax, matmul/bmm/einsum, shapes and indexing), the plain layers an answer builds
  models from (nn.Module, nn.Linear, nn.Embedding, nn.Dropout, activations, containers,
  nn.Parameter, nn.init), dtypes, devices and autograd switches. Nothing in it computes
  attention or a normalisation layer. A rule takes its own names out of it.
- COMPOSITE: the public building blocks that compute what a rule forbids (attention,
  normalisation layers, whole Transformer layers, recurrent cells). Outside a rule's cells
  an answer may call them directly (nothing more); inside, they are findings.
- Anything else reached from a listed module (private `_` names, torch.ops, torch.jit,
  torch.compile, torch.nn.modules, torch.utils, torch.backends, numpy.load, ...) is a
  finding in every answer cell, as is every module not listed (importlib, pickle, ...).
- Tensor and nn.Module attributes: the tensor methods of the names allowed in `torch`
  (with their in-place `_` variants) and TENSOR_METHODS / MODULE_METHODS; any other public
  attribute a tensor or module has is a finding (autograder.checks.forbidden reads the list of
  those from the installed PyTorch, so new methods are findings too).
- Built-ins: BUILTIN_CALLS may be called, BUILTIN_VALUES also used as values (passed,
  stored); getattr/hasattr/setattr only with a literal name (judged as the attribute);
  every other built-in (eval, exec, compile, vars, globals, open, ...) is a finding.
"""

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

ALLOWED: dict[str, frozenset[str]] = {
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
"""Per module: the names every answer cell may use (a rule takes its own names out)."""

COMPOSITE: dict[str, frozenset[str]] = {
    "torch": _names(
        """
        layer_norm native_layer_norm rms_norm group_norm native_group_norm batch_norm native_batch_norm
        instance_norm
        """
    ),
    "torch.nn": _names(
        """
        MultiheadAttention Transformer TransformerEncoder TransformerEncoderLayer TransformerDecoder
        TransformerDecoderLayer LayerNorm RMSNorm GroupNorm BatchNorm1d BatchNorm2d InstanceNorm1d
        LocalResponseNorm GRU GRUCell LSTM LSTMCell RNN RNNCell
        """
    ),
    "torch.nn.functional": _names(
        """
        scaled_dot_product_attention multi_head_attention_forward layer_norm rms_norm group_norm batch_norm
        instance_norm local_response_norm normalize
        """
    ),
}
"""Per module: building blocks that compute what a rule forbids. Outside its cells: direct calls only."""

TENSOR_METHODS = _names(
    """
    size dim ndim ndimension shape dtype device T mT H mH data grad requires_grad requires_grad_ backward
    detach_ item tolist numpy cpu cuda to type type_as float double half bfloat16 int long short bool byte char
    view view_as reshape_as expand expand_as contiguous is_contiguous nelement element_size stride
    is_leaf grad_fn retain_grad fill_ zero_ copy_ uniform_ normal_ bernoulli_ exponential_ random_
    new_tensor new_zeros new_ones new_full new_empty repeat values indices sum_to_size get_device is_cuda unfold
    name index layout nbytes itemsize is_cpu
    """
)
"""Tensor attributes beyond the `torch` functions of the same name (allowed as methods too)."""

MODULE_METHODS = _names(
    """
    add_module apply buffers children cpu cuda double eval extra_repr float forward get_buffer get_parameter
    get_submodule half bfloat16 load_state_dict modules named_buffers named_children named_modules
    named_parameters parameters register_buffer register_module register_parameter requires_grad_ state_dict
    to train type zero_grad
    """
)
"""nn.Module methods an answer may call (not: compile, hooks, share_memory, ...)."""

BUILTIN_VALUES = _names(
    """
    dir memoryview
    abs all any ascii bin bool bytearray bytes callable chr complex dict divmod enumerate filter float format
    frozenset hash hex int iter len list map max min next object oct ord pow print range repr reversed round
    set slice sorted str sum tuple zip property staticmethod classmethod type aiter anext id
    None True False Ellipsis NotImplemented
    """
)
"""Built-ins an answer may call, pass or store (exception classes too: any BaseException subclass)."""

BUILTIN_CALLS = BUILTIN_VALUES | _names("isinstance issubclass super hasattr getattr setattr")
"""Built-ins an answer may call; getattr, hasattr and setattr only with a literal attribute name."""

DUNDER_ATTRIBUTES = _names("__init__ __name__ __qualname__ __doc__ __class__")
"""The only `__x__` attributes an answer may read (super().__init__, type(x).__name__, ...)."""

MODULE_DUNDERS = _names("__version__ __name__ __doc__")
"""The only `__x__` attributes of a module an answer may read (strings: print(torch.__version__))."""

DUNDER_METHODS = _names(
    """
    __init__ __post_init__ __call__ __repr__ __str__ __len__ __iter__ __next__ __getitem__ __setitem__
    __contains__ __enter__ __exit__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__ __hash__ __bool__
    __add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __matmul__ __rmatmul__ __truediv__ __neg__
    """
)
"""The special methods an answer's class may define: not __getattr__, __set_name__, __init_subclass__,
__class_getitem__, descriptors, ... (library code calls those with names or objects it chooses)."""

DUNDER_NAMES = _names("__name__ __debug__ __slots__ __all__ __hash__ __doc__")
"""The only bare `__x__` names an answer may use (not __builtins__, __import__, __loader__, ...)."""

FRAME_ATTRIBUTES = _names(
    """
    gi_frame gi_code gi_yieldfrom cr_frame cr_code cr_await cr_origin ag_frame ag_code ag_await
    f_globals f_locals f_builtins f_back f_code f_trace tb_frame tb_next
    co_code co_consts co_names co_varnames co_filename func_globals
    ctypes cffi mro
    """
)
"""Frame, code, traceback and raw-memory attributes (a generator's frame, an array's ctypes, a class's mro):
ways to the namespaces or to memory from an ordinary object. Never an answer's own attribute."""

CALL_ONLY = _names("copy.deepcopy")
"""Allowed names that may only be called directly, never passed or stored: their arguments are judged
(deepcopy's memo is a finding: it holds the copies' insides)."""

EXCEPTION_OBJECTS = _names("obj")
"""Attributes by which an exception hands back an object (AttributeError.obj: whatever a failed lookup
was on, such as a name some library resolved from a string): a finding unless read as self.obj."""

TORCH_HOOKS = _names("__torch_function__ __torch_dispatch__")
"""Methods PyTorch calls with its own functions (forbidden ones too): an answer may not define them."""

IPYTHON_NAMES = r"_+|_\d+|_i+|_i\d+|_[iod]h|In|Out|get_ipython|exit|quit"
"""IPython's history and shell (a regular expression): earlier outputs can hold any object."""

DEFAULT_GIVEN = """
import math, os, random, re, sys, tempfile, time, warnings, contextlib, weakref, urllib.request
import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from collections import defaultdict
from tqdm.auto import tqdm
from workbook import GRADING, Check, calls_to, count_parameters, heatmap, pick_device, scaled, seed_everything
"""
"""What the notebooks' own cells bind for the answers, assumed whatever the notebook's cells say."""


# --- The policy since the rule is held by the kernel (autograder/shipped/refusal.py) ---------------------
# The scan no longer decides what an answer may compute: while a rule's checks run, the kernel
# refuses the forbidden built-ins by any route. It keeps only what reading source judges fairly:
# ways to undo that refusal or to reach the grader. Every public name of the modules below is
# allowed unless REFUSED says otherwise; tests/test_decided_api.py fails on a name of the
# installed PyTorch, NumPy or Python that is in neither tests/decided_api.json nor REFUSED.

ANSWER_MODULES = _names(
    """
    torch numpy math cmath random re heapq bisect operator numbers enum abc collections typing functools
    itertools dataclasses copy fractions decimal statistics string textwrap time warnings logging json
    pprint struct array hashlib base64 difflib graphlib datetime calendar unicodedata keyword queue
    contextlib weakref sys matplotlib tqdm workbook __future__
    """
)
"""The modules an answer may import, with their public submodules (less REFUSED). Every other module
(os, subprocess, importlib, pickle, gc, ctypes, inspect, types, threading, IPython, ...) can start a
process, run a string, read memory or a namespace: it could undo the refusal or reach the grader."""

REFUSED = _names(
    """
    torch.ops torch.library torch.overrides torch.compile torch.compiler torch.fx torch.jit torch.package
    torch.hub torch.load torch.serialization torch.from_file torch.multiprocessing torch.distributed torch.export torch.classes
    torch.onnx torch.utils.cpp_extension torch.utils.benchmark torch.utils.model_zoo torch.utils.collect_env
    torch.utils.bottleneck torch.utils.jit torch.utils.mobile_optimizer torch.utils.bundled_inputs
    torch.cuda.jiterator torch.sym_eval
    numpy.load numpy.conftest numpy.ctypeslib numpy.f2py numpy.distutils numpy.lib.format
    numpy.testing.extbuild
    functools.update_wrapper operator.attrgetter operator.methodcaller
    typing.get_type_hints typing.ForwardRef dataclasses.make_dataclass
    logging.currentframe logging.config logging.handlers logging.setLogRecordFactory logging.setLoggerClass
    string.Formatter
    """
)
"""Dotted paths an answer may not reach (a path below one is refused too): they compile or run
strings (torch.jit, torch.fx, torch.utils.benchmark's statements, dataclasses' field names,
typing's string annotations, string.Formatter's field names), load pickles or native code (torch.load and torch.serialization, numpy.load, torch.ops,
cpp_extension, ctypeslib), register kernels or modes over the refusal (torch.library,
torch.overrides), start processes (torch.multiprocessing, torch.distributed), read attributes by
computed names (attrgetter, methodcaller, wraps/update_wrapper), or reach frames (logging.currentframe)."""

REFUSED_BUT = _names("torch.jit.is_scripting torch.jit.is_tracing torch.jit.annotate")
"""Names below a refused path that are plain (TorchScript's guards, assert_close): allowed."""

SYS_NAMES = _names("stdout stderr maxsize float_info version version_info byteorder")
"""sys is refused but for these (its modules, path, frames, hooks and limits lead anywhere)."""

REFUSED_ATTRIBUTES = _names("compile")
"""Attributes of objects the scan cannot name that are refused (nn.Module.compile is torch.compile)."""
