Bblocks.2.bn1.weightJ@╣вX╛uq▀;э┬╣╛)зр=/М╛·vQ>aЦ╡╜dы╜IqЙ=м¤r╜ЮMн>LЙ
╛Kм╜▌┴=┐.╛рZ╤=