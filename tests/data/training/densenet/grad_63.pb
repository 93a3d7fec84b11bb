
Bclassifier.biasJ(Å¨Y½TÐN=öÄ<+i<Ú1„=#åê=?WÆ=þ¾¼ñ÷½Êcw=