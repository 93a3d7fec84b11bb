 B*encoder.layers.encoder_layer_1.ln_1.weightJÄ,c∆<ü‡"Ω«úå=2ø°Ω≠º->=¸πªTŸÜ=5––=gñ>ù$ä=hF=?û¶=xKZ=ªC=r«+æ—©ì=nXΩ©k∆Ω∫ù®=<3∞ΩƒÃ∞æv∞9= 2æb2ëΩã‰.Ω
©=ÃÙXΩw¬r<óí =Í8‹<⁄BΩ†oæ