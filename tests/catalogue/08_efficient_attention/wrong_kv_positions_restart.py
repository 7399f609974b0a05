"""KV cache decoding forgets the position offset: every call embeds its tokens at positions 0 .. T-1."""
# expect: positions restart at 0
# %% patch tiny_decoder
# -         past = 0 if caches is None else len(caches[0])  # how many positions came before
# -         positions = torch.arange(past, past + T, device=tokens.device)  # (T,)
# -         x = self.tok_emb(tokens) + self.pos_emb(positions)  # (B, T, E)
# +         x = self.tok_emb(tokens) + self.pos_emb(torch.arange(T))  # forgot the offset len(caches[0])
