B-features.denseblock4.denselayer1.norm2.weightJ@j³:Ò±m»5V¨:c.;ßùw;$›»7„»ı*
:ñTQ:÷c;PÔ;|¦¾9êG¼ÜôÉ:v©ºÏ¶»