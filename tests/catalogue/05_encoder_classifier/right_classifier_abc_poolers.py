"""Pooling strategies as abc.ABC subclasses chosen from a dict; a module-level logging logger records shapes with logger.debug."""
# %% answer classifier
import abc
import logging

logger = logging.getLogger(__name__)


class Pooler(abc.ABC):
    """Turns the encoder output (B, L, E) into one vector per sequence (B, E)."""

    prepends_cls = False

    @abc.abstractmethod
    def __call__(self, x, key_padding_mask):
        raise NotImplementedError


class ClsPooler(Pooler):
    prepends_cls = True

    def __call__(self, x, key_padding_mask):
        return x[:, 0]  # the [CLS] position


class MeanPooler(Pooler):
    def __call__(self, x, key_padding_mask):
        return masked_mean_pool(x, key_padding_mask)


POOLERS = {"cls": ClsPooler, "mean": MeanPooler}


class TransformerClassifier(nn.Module):
    """Token + position embeddings, encoder blocks, CLS or masked-mean pooling, linear head."""

    def __init__(self, vocab_size, num_classes, d_model=64, num_heads=4, d_ff=128, num_layers=2,
                 max_len=64, pad_id=0, dropout=0.1, pooling="cls", norm_first=False):
        super().__init__()
        if pooling not in POOLERS:
            raise ValueError(f"unknown pooling {pooling!r} (pooling must be one of {sorted(POOLERS)})")
        self.pooler = POOLERS[pooling]()
        self.pad_id = pad_id
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.positions = nn.Embedding(max_len + 1, d_model)
        self.cls = nn.Parameter(torch.randn(1, 1, d_model) / math.sqrt(d_model))
        self.dropout = nn.Dropout(dropout)
        self.encoder = nn.ModuleList(TransformerEncoderBlock(d_model, num_heads, d_ff, dropout, "relu", norm_first)
                                     for _ in range(num_layers))
        self.norm = nn.LayerNorm(d_model) if norm_first else None
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, token_ids, key_padding_mask=None):
        if key_padding_mask is None:
            key_padding_mask = token_ids == self.pad_id
        x = self.embedding(token_ids)
        if self.pooler.prepends_cls:
            x = torch.cat([self.cls.expand(len(x), -1, -1), x], dim=1)
            key_padding_mask = torch.cat([key_padding_mask.new_zeros(len(x), 1), key_padding_mask], dim=1)
        logger.debug("encoder input %s, padding %s", tuple(x.shape), tuple(key_padding_mask.shape))
        x = self.dropout(x + self.positions(torch.arange(x.size(1), device=x.device)))
        for block in self.encoder:
            x = block(x, key_padding_mask)
        if self.norm is not None:
            x = self.norm(x)
        return self.head(self.pooler(x, key_padding_mask))
