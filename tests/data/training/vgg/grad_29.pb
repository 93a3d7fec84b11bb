
Bclassifier.3.biasJ(š3=?Ç<yÈ=Œ$Å<H˜«<zÉÖ¼j[¼ìí)¼3æ¼<ð$€: