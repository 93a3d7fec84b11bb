
Bclassifier.1.biasJ(\Ð@<j
‰=N;=ÉÚ¼¿›<ÀØ<$á<Ü¾¼q;h½n&ž<