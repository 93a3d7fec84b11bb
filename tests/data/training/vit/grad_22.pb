 B*encoder.layers.encoder_layer_1.ln_2.weightJ€ºAš>|>x‡=%#Ë¾Þ½ÍFƒ½Š´x=ºc=œë=_ ¨¼jÉ?7Lv½I®½Î[…¼Îbƒ½zÚ…=¸Ùñ=~A\¿Øª>ÇR‹¾a2?Tº>¸l='Î¿%Ì¼¨r¹>¥k>
>¾Nò2?H?Pø0¾UÇ¿¾