B+features.denseblock4.denselayer1.norm1.biasJ@|=Á»M*<¬
õ9È–ˆ:Ì™:¸»ßf
; BçºôÈ±»fnÁ»¢é›»Ôæp:õe¶¸x	ºQ…;Ï½»