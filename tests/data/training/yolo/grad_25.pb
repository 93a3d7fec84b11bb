Bstage3.1.a.1.weightJ ‘ºéj-ºo
 ¹PV[ºº“Œ¹àç²¸JÔ_ºtm;