Blinear.biasJy–Áz°0BSù
B