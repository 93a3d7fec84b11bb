"""PyTorch definitions of the non-torchvision reference models ridge bundles.

Written out here (rather than taken from a model hub) so that the export needs nothing but
Debian's python3-torch, and so the benchmark can build larger variants of the same classes.
"""
import math

import torch
from torch import nn


class BertLayer(nn.Module):
    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.heads, self.head_size = heads, hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.attn_out = nn.Linear(hidden, hidden)
        self.attn_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.ffn_in = nn.Linear(hidden, ffn)
        self.ffn_out = nn.Linear(ffn, hidden)
        self.ffn_norm = nn.LayerNorm(hidden, eps=1e-12)

    def split(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.head_size).transpose(1, 2)

    def forward(self, x, mask_bias):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_size) + mask_bias
        context = torch.matmul(torch.softmax(scores, dim=-1), v)
        b, h, s, d = context.shape
        context = context.transpose(1, 2).reshape(b, s, h * d)
        x = self.attn_norm(x + self.attn_out(context))
        return self.ffn_norm(x + self.ffn_out(nn.functional.gelu(self.ffn_in(x))))


class BertEncoder(nn.Module):
    """BERT-base encoder: embeddings, 12 post-norm layers, pooler."""

    def __init__(self, vocab=30522, hidden=768, layers=12, heads=12, ffn=3072, max_positions=512):
        super().__init__()
        self.word = nn.Embedding(vocab, hidden)
        self.position = nn.Embedding(max_positions, hidden)
        self.token_type = nn.Embedding(2, hidden)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList([BertLayer(hidden, heads, ffn) for _ in range(layers)])
        self.pooler = nn.Linear(hidden, hidden)

    def forward(self, input_ids, attention_mask):
        seq = input_ids.shape[1]
        positions = torch.arange(seq, dtype=torch.long).unsqueeze(0)
        x = self.word(input_ids) + self.position(positions) + self.token_type(torch.zeros_like(input_ids))
        x = self.norm(x)
        mask_bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, mask_bias)
        return x, torch.tanh(self.pooler(x[:, 0]))


class GptBlock(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads, self.head_size = heads, width // heads
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.fc = nn.Linear(width, 4 * width)
        self.out = nn.Linear(4 * width, width)

    def forward(self, x):
        b, s, w = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(w, dim=2)
        q, k, v = (t.view(b, s, self.heads, self.head_size).transpose(1, 2) for t in (q, k, v))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_size)
        causal = torch.ones(s, s, dtype=torch.bool).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
        y = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(b, s, w)
        x = x + self.proj(y)
        return x + self.out(nn.functional.gelu(self.fc(self.norm2(x)), approximate="tanh"))


class Gpt2(nn.Module):
    """GPT-2-style decoder with a causal mask and a weight-tied LM head."""

    def __init__(self, vocab=50257, width=768, layers=12, heads=12, max_positions=1024):
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(max_positions, width)
        self.blocks = nn.ModuleList([GptBlock(width, heads) for _ in range(layers)])
        self.norm = nn.LayerNorm(width)

    def forward(self, input_ids):
        seq = input_ids.shape[1]
        x = self.wte(input_ids) + self.wpe(torch.arange(seq, dtype=torch.long).unsqueeze(0))
        for block in self.blocks:
            x = block(x)
        return torch.matmul(self.norm(x), self.wte.weight.t())


class LstmClassifier(nn.Module):
    """Two stacked LSTM layers over a feature sequence, a linear head on the last step."""

    def __init__(self, features=64, hidden=256, classes=10):
        super().__init__()
        self.lstm = nn.LSTM(features, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y[:, -1])


def conv_bn_act(cin, cout, k=1, s=1, p=None):
    p = k // 2 if p is None else p
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, p, bias=False), nn.BatchNorm2d(cout), nn.SiLU())


class C3(nn.Module):
    def __init__(self, cin, cout, blocks=1):
        super().__init__()
        hidden = cout // 2
        self.a, self.b = conv_bn_act(cin, hidden), conv_bn_act(cin, hidden)
        self.m = nn.Sequential(*[nn.Sequential(conv_bn_act(hidden, hidden), conv_bn_act(hidden, hidden, 3))
                                 for _ in range(blocks)])
        self.out = conv_bn_act(2 * hidden, cout)

    def forward(self, x):
        a = self.a(x)
        return self.out(torch.cat([a + self.m(a), self.b(x)], dim=1))


class Sppf(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.reduce, self.pool, self.out = conv_bn_act(c, c // 2), nn.MaxPool2d(5, 1, 2), conv_bn_act(2 * c, c)

    def forward(self, x):
        x = self.reduce(x)
        y1 = self.pool(x)
        y2 = self.pool(y1)
        return self.out(torch.cat([x, y1, y2, self.pool(y2)], dim=1))


class YoloStyle(nn.Module):
    """A small YOLOv5-style detector: CSP backbone, SPPF, FPN neck with upsampling, 3 heads."""

    def __init__(self, classes=80, anchors=3, width=32):
        super().__init__()
        w = width
        self.stem = conv_bn_act(3, w, 6, 2, 2)
        self.stage2 = nn.Sequential(conv_bn_act(w, 2 * w, 3, 2), C3(2 * w, 2 * w))
        self.stage3 = nn.Sequential(conv_bn_act(2 * w, 4 * w, 3, 2), C3(4 * w, 4 * w, 2))
        self.stage4 = nn.Sequential(conv_bn_act(4 * w, 8 * w, 3, 2), C3(8 * w, 8 * w))
        self.stage5 = nn.Sequential(conv_bn_act(8 * w, 16 * w, 3, 2), C3(16 * w, 16 * w), Sppf(16 * w))
        self.lat5, self.up = conv_bn_act(16 * w, 8 * w), nn.Upsample(scale_factor=2, mode="nearest")
        self.fuse4, self.lat4 = C3(16 * w, 8 * w), conv_bn_act(8 * w, 4 * w)
        self.fuse3 = C3(8 * w, 4 * w)
        self.down3, self.fuse4b = conv_bn_act(4 * w, 4 * w, 3, 2), C3(8 * w, 8 * w)
        self.down4, self.fuse5b = conv_bn_act(8 * w, 8 * w, 3, 2), C3(16 * w, 16 * w)
        self.outputs = anchors * (5 + classes)
        self.heads = nn.ModuleList([nn.Conv2d(c, self.outputs, 1) for c in (4 * w, 8 * w, 16 * w)])
        self.anchors = anchors

    def forward(self, x):
        p3 = self.stage3(self.stage2(self.stem(x)))
        p4 = self.stage4(p3)
        p5 = self.stage5(p4)
        l5 = self.lat5(p5)
        n4 = self.fuse4(torch.cat([self.up(l5), p4], 1))
        l4 = self.lat4(n4)
        n3 = self.fuse3(torch.cat([self.up(l4), p3], 1))
        n4b = self.fuse4b(torch.cat([self.down3(n3), l4], 1))
        n5b = self.fuse5b(torch.cat([self.down4(n4b), l5], 1))
        predictions = []
        for head, feature in zip(self.heads, (n3, n4b, n5b)):
            y = head(feature)
            b, _, h, w = y.shape
            y = y.view(b, self.anchors, self.outputs // self.anchors, h, w).permute(0, 1, 3, 4, 2)
            predictions.append(torch.sigmoid(y).reshape(b, -1, self.outputs // self.anchors))
        return torch.cat(predictions, 1)
